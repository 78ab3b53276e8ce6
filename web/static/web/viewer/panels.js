// The side panels: a resident's (identity, action and place, today's plan, memories,
// conversations, reflections with their evidence, an interview) and the town's (a feed
// of events without moves, objects in use, conversations in progress).

import { el, getJSON, itemsOf, postJSON } from "./api.js";

const FEED_MAX = 300;
const TALKS = 12; // conversations listed up to the step shown
const REPLAY_STEPS = 30; // in replay, the feed shows the events of this many steps up to the one shown
const PLAN_LIVE_MS = 2000; // live, a resident's plan is read again at most this often

// Every page of a list (following `next`).
async function allPages(url, params) {
  const items = [];
  let page = await getJSON(url, params);
  for (;;) {
    items.push(...itemsOf(page));
    if (!page.next) return items;
    page = await getJSON(page.next);
  }
}

function time(iso) {
  return iso ? iso.slice(11, 16) : "";
}

function eventText(event) {
  const p = event.payload || {};
  switch (event.kind) {
    case "agent.acting":
      return `${p.emoji || ""} ${p.action || "stands still"}${p.chatting_with ? ` (with ${p.chatting_with})` : ""}`;
    case "agent.headed":
      return `heads to ${p.destination}: ${p.action}`;
    case "agent.arrived":
      return `arrives: ${p.action}`;
    case "agent.perceived":
      return `sees ${(p.observations || []).slice(0, 2).join("; ")}`;
    case "object.state":
      return `${p.address}: ${p.state}`;
    case "conversation.held":
      return p.summary || `talks with ${(p.participants || []).join(", ")}`;
    default:
      return p.description || p.statement || p.summary || p.action || p.state || "";
  }
}

export class TownPanel {
  constructor(api, residents, jump) {
    this.api = api;
    this.residents = residents;
    this.jump = jump; // to a step: the viewer shows it
    this.talks = []; // the conversations listed, the latest first
    this.talksStep = 0; // the step the list holds for
    this.refreshObjects();
  }

  // The latest conversations held up to `step` (the API's), each a link to the step it
  // began at. Live, those the stream brought since (addTalk) stay on top.
  async showTalks(step, live) {
    if (step === this.talksAt) return;
    this.talksAt = step;
    const asked = (this.talksAsked = (this.talksAsked || 0) + 1);
    this.talksPending = true;
    try {
      // The API lists them newest first.
      const page = await getJSON(`${this.api}/conversations/`, { step_max: step, limit: TALKS });
      if (asked !== this.talksAsked) return; // shown another step meanwhile
      const later = live ? this.talks.filter((c) => c.step > step) : [];
      this.talks = [...later, ...itemsOf(page)].slice(0, TALKS);
      this.talksPending = false;
      this.renderTalks(live ? Math.max(step, this.talksStep) : step);
    } catch (error) {
      /* kept as it was; the next step shown tries again */
    }
  }

  // Live: a conversation the stream brought (the event's step, sim time, participants and
  // summary), listed at once with the step that shows it, so the list keeps the clock's step.
  addTalk(talk, step) {
    const key = (c) => `${c.step}|${c.participants.join("|")}`;
    if (!this.talks.some((c) => key(c) === key(talk))) this.talks = [talk, ...this.talks].slice(0, TALKS);
    this.talksStep = this.talksAt = step;
    if (!this.talksPending) this.renderTalks(step); // else with the read's answer
  }

  // Live: a step shown that brought no conversation; the list holds for it as it is.
  keepTalks(step) {
    this.talksStep = this.talksAt = step;
    if (!this.talksPending) document.getElementById("talks").dataset.step = String(step);
  }

  renderTalks(step) {
    this.talksStep = step;
    const list = document.getElementById("talks");
    list.dataset.step = String(step);
    list.replaceChildren(
      ...this.talks.map((c) => {
        const link = el("a", { href: "#", "data-step": String(c.step) }, `${time(c.started)} ${c.participants.join(" ↔ ")}`);
        link.addEventListener("click", (event) => {
          event.preventDefault();
          this.jump(c.step);
        });
        return el("li", {}, link, el("span", { class: "muted" }, ` ${c.summary}`));
      }),
    );
    if (!list.children.length) list.append(el("li", { class: "muted" }, "none yet"));
  }

  feed(event) {
    const list = document.getElementById("feed");
    list.prepend(this.item(event));
    while (list.children.length > FEED_MAX) list.lastChild.remove();
  }

  item(event) {
    return el(
      "li",
      { class: `feed-${event.kind.replace(".", "-")}`, "data-kind": event.kind, "data-step": String(event.step) },
      el("span", { class: "when" }, `${event.step} · ${time(event.sim_time)}`),
      " ",
      event.agent ? el("strong", {}, event.agent) : null,
      " ",
      el("span", { class: "kind" }, event.kind),
      " ",
      eventText(event),
    );
  }

  // The panel at a replayed step: the events of the steps up to it and the objects'
  // states then, read from the log; back to live, the live feed and objects return.
  async showStep(step, live) {
    const feed = document.getElementById("feed");
    const past = document.getElementById("feed-replay");
    if (live) {
      if (this.replaying) {
        this.replaying = false;
        feed.hidden = false;
        past.hidden = true;
        this.refreshObjects();
      }
      return;
    }
    this.replaying = true;
    const asked = (this.asked = (this.asked || 0) + 1);
    try {
      const [recent, states] = await Promise.all([
        getJSON(`${this.api}/events/`, { step_min: Math.max(0, step - REPLAY_STEPS), step_max: step, page_size: 1000 }),
        allPages(`${this.api}/events/`, { kind: "object.state", step_max: step, page_size: 1000 }),
      ]);
      if (asked !== this.asked || !this.replaying) return; // scrubbed on meanwhile
      const shown = itemsOf(recent).filter((e) => e.kind !== "agent.moved").reverse().slice(0, FEED_MAX);
      past.replaceChildren(...shown.map((e) => this.item(e)));
      feed.hidden = true;
      past.hidden = false;
      const last = new Map(states.map((e) => [e.payload.address, e.payload.state]));
      this.showObjects([...last].filter(([, state]) => state && state !== "idle").map(([address, state]) => ({ address, state })));
    } catch (error) {
      /* kept as it was; the next step shown tries again */
    }
  }

  async refreshObjects() {
    if (this.replaying) return; // the replayed step's objects are shown
    try {
      this.showObjects(itemsOf(await getJSON(`${this.api}/objects/`)));
    } catch (error) {
      /* kept as it was; the next refresh tries again */
    }
  }

  showObjects(objects) {
    const list = document.getElementById("objects");
    list.replaceChildren(
      ...objects.map((o) => el("li", {}, el("strong", {}, o.address.split(":").slice(-2).join(": ")), ` ${o.state}`)),
    );
    if (!objects.length) list.append(el("li", { class: "muted" }, "all idle"));
  }

  showConversations(state) {
    const list = document.getElementById("conversations");
    const pairs = [];
    state.partners.forEach((p, i) => {
      if (p >= 0 && (p > i || state.partners[p] !== i)) pairs.push([i, p]);
    });
    list.replaceChildren(
      ...pairs.map(([a, b]) => el("li", {}, `${this.residents[a].name} ↔ ${this.residents[b].name}`)),
    );
    if (!pairs.length) list.append(el("li", { class: "muted" }, "nobody is talking"));
  }
}

function planList(items, depth = 0) {
  return el(
    "ul",
    { class: `plan plan-${depth}` },
    items.map((item) =>
      el(
        "li",
        { class: item.current ? "current" : "" },
        el("span", { class: "plan-time" }, time(item.start)),
        " ",
        item.current ? el("strong", { class: "now-mark" }, "▶ now ") : null,
        `${item.emoji || ""} ${item.description}`,
        ` (${item.duration_minutes} min)`,
        item.children && item.children.length && (item.current || depth === 0) ? planList(item.children, depth + 1) : null,
      ),
    ),
  );
}

function planOf(plan) {
  return plan && plan.items.length ? planList(plan.items) : el("p", { class: "muted" }, "no plan for the day yet");
}

export class ResidentPanel {
  // `placeAt(x, y)`: the address of the place at a tile (the map's, as the API names it).
  constructor(api, onClose, placeAt) {
    this.api = api;
    this.placeAt = placeAt;
    this.session = null;
    document.getElementById("resident-close").addEventListener("click", () => {
      document.getElementById("resident-panel").hidden = true;
      onClose(-1);
    });
    document.getElementById("interview").addEventListener("submit", (event) => {
      event.preventDefault();
      this.ask(new FormData(event.target));
    });
  }

  async open(resident, state, index, step, live) {
    this.resident = resident;
    this.latest = { state, step, live }; // shown once the panel is built
    this.session = null;
    const panel = document.getElementById("resident-panel");
    panel.hidden = false;
    panel.dataset.resident = resident.name;
    document.getElementById("interview-answer").textContent = "";
    const body = document.getElementById("resident-body");
    body.replaceChildren(el("h2", {}, resident.name), el("p", { class: "muted" }, "loading…"));
    const base = `${this.api}/residents/${resident.id}`;
    const [detail, plan, memories, reflections, conversations] = await Promise.all([
      getJSON(`${base}/`),
      getJSON(`${base}/plan/`, { step }).catch(() => null),
      getJSON(`${base}/memories/`, { limit: 12 }),
      getJSON(`${base}/memories/`, { kind: "reflection", limit: 4 }),
      getJSON(`${this.api}/conversations/`, { participant: resident.name, limit: 1000 }),
    ]);
    if (this.resident !== resident) return; // another resident was clicked meanwhile
    const trees = await Promise.all(
      itemsOf(reflections).map((m) => getJSON(`${base}/memories/${m.number}/evidence/`).catch(() => null)),
    );
    const recentTalks = itemsOf(conversations).slice(0, 3); // the API's newest first
    const talks = await Promise.all(
      recentTalks.map((c) => getJSON(`${this.api}/conversations/${c.number}/`).catch(() => c)),
    );
    body.replaceChildren(
      el("h2", {}, `${resident.name} `, el("span", { class: "muted" }, detail.age ? `${detail.age}` : "")),
      el("p", { class: "identity" }, detail.innate ? `${detail.innate}. ` : "", detail.currently || ""),
      el("p", { class: "doing" }, el("span", { id: "resident-action" }), el("br"), el("span", { class: "muted", id: "resident-place" }, detail.place || "")),
      el("h3", {}, "Today's plan"),
      el("div", { id: "resident-plan", "data-step": String(step) }, planOf(plan)),
      el("h3", {}, "Recent memories"),
      el("ol", { class: "memories" }, itemsOf(memories).map((m) =>
        el("li", {}, el("span", { class: "muted" }, `${time(m.created)} · ${m.kind} · ${m.importance} `), m.description))),
      el("h3", {}, "Conversations"),
      talks.length
        ? el("div", { class: "conversations" }, talks.map((c) => el("div", { class: "conversation" },
            el("p", { class: "muted" }, `${time(c.started)} at ${c.address || "?"}: ${c.participants.join(", ")}`),
            el("ul", {}, (c.lines || []).map((line) => el("li", {}, el("strong", {}, `${line.speaker}: `), line.text))))))
        : el("p", { class: "muted" }, "no conversations yet"),
      el("h3", {}, "Reflections"),
      trees.filter(Boolean).length
        ? el("ul", { class: "reflections" }, trees.filter(Boolean).map((t) =>
            el("li", {}, t.memory.description,
              el("ul", { class: "evidence" }, t.evidence.map((e) => el("li", {}, `#${e.memory.number} ${e.memory.description}`))))))
        : el("p", { class: "muted" }, "no reflections yet"),
    );
    // The step shown now, which may have moved on while the panel loaded.
    this.planStep = step;
    this.showState(this.latest.state, index, this.latest.step, this.latest.live);
  }

  // The resident's action, place and plan at the step shown, live or replayed (each
  // element says which step it shows): the place is the one at its tile then.
  showState(state, index, step, live) {
    this.latest = { state, step, live };
    const action = document.getElementById("resident-action");
    if (!action || index < 0) return;
    action.textContent = `${state.emojis[index] || ""} ${state.actions[index] || "idle"}`;
    action.dataset.step = String(step);
    const place = document.getElementById("resident-place");
    place.textContent = this.placeAt(state.tiles[2 * index], state.tiles[2 * index + 1]);
    place.dataset.step = String(step);
    this.wantPlan(step, live);
  }

  // The plan as it stood at the step shown (`plan/?step=`), its items under way then
  // marked: one read at a time, the last step asked for read next; live, at most every
  // PLAN_LIVE_MS.
  wantPlan(step, live) {
    this.planWanted = step;
    if (this.planReading || this.planStep === step || !document.getElementById("resident-plan")) return;
    this.planReading = true;
    const wait = live ? Math.max(0, PLAN_LIVE_MS - (Date.now() - (this.planReadAt || 0))) : 0;
    setTimeout(() => this.readPlan(this.resident), wait);
  }

  async readPlan(resident) {
    const step = this.planWanted;
    const plan = await getJSON(`${this.api}/residents/${resident.id}/plan/`, { step }).catch(() => null);
    this.planReading = false;
    this.planReadAt = Date.now();
    const box = document.getElementById("resident-plan");
    if (resident === this.resident && box) {
      box.replaceChildren(planOf(plan));
      box.dataset.step = String(step);
      this.planStep = step;
    }
    if (this.planStep !== this.planWanted) this.wantPlan(this.planWanted, this.latest.live);
  }

  async ask(form) {
    const out = document.getElementById("interview-answer");
    out.textContent = "…";
    const body = { persona: form.get("persona"), question: form.get("question") };
    if (this.session) body.session = this.session;
    try {
      const answer = await postJSON(`${this.api}/residents/${this.resident.id}/interview/`, body);
      this.session = answer.session;
      out.replaceChildren(el("strong", {}, `${this.resident.name}: `), answer.answer);
    } catch (error) {
      out.textContent = error.message;
    }
  }
}
