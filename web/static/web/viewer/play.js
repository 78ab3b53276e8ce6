// Playing in the town: step in as a newcomer (or, the owner, take over a resident), walk
// by clicking a tile or with W A S D, see who is near, talk in the chat panel, leave.
// Everything goes through the REST API (players/, go/, say/, sight/); what residents say
// to the person comes back on the live log (`conversation.held`). The owner also sets who
// may join (share/).

import { el, getJSON, itemsOf, postJSON, sendJSON } from "./api.js";

const SIGHT_MS = 1500; // who is near, read again this often while playing
const PLAYERS_MS = 5000; // who plays whom, read again this often while its list is open
const MOVES = { w: [0, -1], a: [-1, 0], s: [0, 1], d: [1, 0] };

const $ = (id) => document.getElementById(id);

export class Play {
  constructor(viewer, api, map) {
    this.viewer = viewer;
    this.api = api;
    this.me = null; // the name of the resident this user plays
    this.heard = new Set(); // conversations shown in the chat (their lines, as a key)
    const arrive = $("join-at");
    const places = [...map.arenas].sort((a, b) => a.address.localeCompare(b.address));
    arrive.replaceChildren(...places.map((p) => new Option(p.address, p.address)));
    this.wire();
  }

  async start() {
    const players = await this.readPlayers();
    const mine = players.find((p) => p.you);
    if (mine) this.enter(mine.resident);
    // Read before the page says it is ready: a late answer would undo what a user types.
    if ($("share-form")) await this.readShare();
    setInterval(() => {
      if ($("players").closest("details").open) this.readPlayers();
    }, PLAYERS_MS);
  }

  async readPlayers() {
    const players = itemsOf(await getJSON(`${this.api}/players/`).catch(() => []));
    this.showPlayers(players);
    return players;
  }

  wire() {
    $("join").addEventListener("submit", (event) => {
      event.preventDefault();
      const form = new FormData(event.target);
      this.join({ name: form.get("name"), about: form.get("about"), address: form.get("at") });
    });
    $("take-over")?.addEventListener("submit", (event) => {
      event.preventDefault();
      const resident = $("take-over-who").value;
      if (resident) this.join({ resident });
    });
    $("say").addEventListener("submit", (event) => {
      event.preventDefault();
      this.say($("say-to").value, $("say-text").value);
    });
    $("leave").addEventListener("click", () => this.leave());
    $("share-form")?.addEventListener("submit", (event) => {
      event.preventDefault();
      this.saveShare();
    });
    $("map-wrap").addEventListener("keydown", (event) => {
      const move = MOVES[event.key.toLowerCase()];
      if (!this.me || !move || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      const [x, y] = this.tile();
      this.walk([x + move[0], y + move[1]]);
    });
  }

  error(message) {
    $("play-error").textContent = message;
  }

  async join(body) {
    this.error("");
    try {
      const resident = await postJSON(`${this.api}/players/`, body);
      this.viewer.newcomer = true; // read the residents again: a newcomer is new to them
      this.at = resident.tile;
      this.enter(resident.name);
    } catch (error) {
      this.error(error.message);
    }
  }

  enter(name) {
    this.me = name;
    $("play-root").dataset.playing = "true";
    $("play-out").hidden = true;
    $("play-in").hidden = false;
    $("me-name").textContent = name;
    this.viewer.followed = name;
    this.sight();
    this.timer = setInterval(() => this.sight(), SIGHT_MS);
  }

  async leave() {
    this.error("");
    try {
      await sendJSON("DELETE", `${this.api}/players/${encodeURIComponent(this.me)}/`);
    } catch (error) {
      this.error(error.message);
      return;
    }
    clearInterval(this.timer);
    this.me = null;
    this.viewer.followed = null;
    $("play-root").dataset.playing = "false";
    $("play-out").hidden = false;
    $("play-in").hidden = true;
  }

  // My tile as drawn now (the live state), [x, y]; where I arrived until the page has
  // read me in.
  tile() {
    const i = this.viewer.index.get(this.me);
    const tiles = this.viewer.live.tiles;
    return i === undefined ? this.at || [0, 0] : [tiles[2 * i], tiles[2 * i + 1]];
  }

  // A click on the map: on a resident, talk to it; elsewhere, walk to that tile.
  clicked(resident, px, py) {
    if (!this.me) return false;
    if (resident >= 0) {
      const name = this.viewer.residents[resident].name;
      if (name === this.me) return false;
      if (![...$("say-to").options].some((o) => o.value === name)) {
        this.error(`${name} is not in sight: walk closer (same room, a few tiles)`);
        return true;
      }
      this.error("");
      $("say-to").value = name;
      $("say-text").focus();
      return true;
    }
    const t = this.viewer.town.tile;
    this.walk([Math.floor(px / t), Math.floor(py / t)]);
    return true;
  }

  async walk(tile) {
    this.error("");
    try {
      await postJSON(`${this.api}/residents/${encodeURIComponent(this.me)}/go/`, { tile });
      $("play-root").dataset.walkingTo = tile.join(",");
    } catch (error) {
      this.error(error.message);
    }
  }

  async sight() {
    if (!this.me) return;
    let near;
    try {
      near = await getJSON(`${this.api}/residents/${encodeURIComponent(this.me)}/sight/`);
    } catch (error) {
      return; // the next read tries again
    }
    const list = $("near");
    list.replaceChildren(
      ...near.map((r) =>
        el("li", { "data-name": r.name },
          el("strong", {}, r.name), r.person ? " (a person)" : "",
          ` · ${r.distance} tiles · ${r.asleep ? "asleep" : r.action || "idle"}`),
      ),
    );
    if (!near.length) list.append(el("li", { class: "muted" }, "nobody in sight: walk closer to someone"));
    const to = $("say-to");
    const chosen = to.value;
    to.replaceChildren(...near.map((r) => new Option(r.name, r.name)));
    if (near.some((r) => r.name === chosen)) to.value = chosen;
  }

  async say(to, text) {
    this.error("");
    if (!to) return this.error("nobody in sight to talk to");
    if (!text.trim()) return;
    const asked = performance.now();
    try {
      const talk = await postJSON(`${this.api}/residents/${encodeURIComponent(this.me)}/say/`, { to, text });
      $("say-text").value = "";
      this.showTalk(talk.lines);
      $("chat").dataset.answeredMs = String(Math.round(performance.now() - asked));
    } catch (error) {
      this.error(error.message);
    }
  }

  // A conversation from the live log: into the chat when I am in it.
  take(event) {
    const p = event.payload;
    if (this.me && (p.participants || []).includes(this.me)) this.showTalk(p.lines || []);
  }

  showTalk(lines) {
    // The same exchange comes twice, from Say's answer and from the live log.
    const key = lines.map((line) => `${line.speaker}\u0000${line.text}`).join("\u0001");
    if (!lines.length || this.heard.has(key)) return;
    this.heard.add(key);
    const chat = $("chat");
    for (const line of lines) {
      const mine = line.speaker === this.me;
      chat.append(el("p", { class: mine ? "line mine" : "line", "data-speaker": line.speaker },
        el("strong", {}, line.speaker), " ", line.text));
    }
    chat.scrollTop = chat.scrollHeight;
  }

  showPlayers(players) {
    const list = $("players");
    list.replaceChildren(...players.map((p) => el("li", {}, `${p.user} as `, el("strong", {}, p.resident))));
  }

  // The owner's: who may join.
  async readShare() {
    const share = await getJSON(`${this.api}/share/`).catch(() => null);
    if (!share) return;
    $("share-mode").value = share.share;
    $("share-guests").value = share.guests.join(", ");
  }

  async saveShare() {
    const guests = $("share-guests").value.split(",").map((g) => g.trim()).filter(Boolean);
    $("share-error").textContent = "";
    try {
      await sendJSON("PUT", `${this.api}/share/`, { share: $("share-mode").value, guests });
      $("share-error").textContent = "saved";
    } catch (error) {
      $("share-error").textContent = error.message;
    }
  }

  // The residents the owner may take over: those in the town nobody plays.
  listResidents(residents, step) {
    const pick = $("take-over-who");
    if (!pick) return;
    const names = residents.filter((r) => r.left_step == null || step < r.left_step).map((r) => r.name).sort();
    pick.replaceChildren(new Option("a resident…", ""), ...names.map((n) => new Option(n, n)));
  }
}
