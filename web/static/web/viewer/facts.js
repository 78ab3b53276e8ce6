// Colour by fact: the residents drawn by whether they hold a named fact at the step shown
// (live or replayed), to watch news travel through the town. Who holds it, since which
// step and told by whom is read once per fact (`/facts/holders/`, again as a live run goes
// on); each step shown then colours the holders whose first step is at or before it.

import { el, getJSON } from "./api.js";

// Fills with white initials readable on them (contrast >= 4.5:1), told apart by more than
// hue: the source violet with a gold ring, other holders deep orange, the rest grey.
export const FACT_COLOURS = {
  source: "#5b2a86",
  holds: "#b5460f",
  not: "#6b7280",
  ring: "#f2c14e",
};
const REREAD_MS = 3000; // live, the holders are read again at most this often

const $ = (id) => document.getElementById(id);

function clock(iso) {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : "";
}

export class FactColours {
  // `viewer` gives `residents`, `shownStep`, `following`, `selected` and `town`.
  constructor(api, viewer) {
    this.api = api;
    this.viewer = viewer;
    this.fact = null; // {fact, words, origin} as asked
    this.holders = null; // the last read: {fact, source, residents, step, holders}
    this.byName = new Map();
    this.asked = 0;
    this.readAt = 0;
    this.wire();
  }

  wire() {
    $("fact-select").addEventListener("change", () => {
      const i = $("fact-select").value;
      if (i === "") this.clear();
      else this.choose(this.named[Number(i)]);
    });
    $("fact-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = $("fact-text").value.trim();
      $("fact-select").value = "";
      if (text) this.choose({ text });
      else this.clear();
    });
    $("fact-clear").addEventListener("click", () => {
      $("fact-select").value = "";
      $("fact-text").value = "";
      this.clear();
    });
  }

  // The base's named facts, offered in the select.
  async load() {
    try {
      this.named = (await getJSON(`${this.api}/facts/`)).facts;
    } catch (error) {
      this.named = [];
    }
    $("fact-select").replaceChildren(
      el("option", { value: "" }, this.named.length ? "none" : "none (the base names no fact)"),
      ...this.named.map((fact, i) => el("option", { value: String(i) }, fact.text)),
    );
  }

  async choose(fact) {
    this.fact = fact;
    $("fact-error").textContent = "";
    await this.read();
  }

  // Who holds the chosen fact, read again; the step shown drawn by it.
  async read() {
    const fact = this.fact;
    const asked = ++this.asked;
    const params = new URLSearchParams({ fact: fact.text });
    for (const group of fact.words || []) params.append("words", group.join(","));
    if (fact.origin) params.set("origin", fact.origin);
    this.readAt = Date.now();
    let body;
    try {
      body = await getJSON(`${this.api}/facts/holders/?${params}`);
    } catch (error) {
      if (asked !== this.asked) return;
      $("fact-error").textContent = error.message;
      this.clear(false);
      return;
    }
    if (asked !== this.asked || this.fact !== fact) return; // another fact chosen meanwhile
    this.holders = body;
    this.byName = new Map(body.holders.map((h) => [h.name, h]));
    this.viewer.town.colourOf = (i) => this.paint(i);
    $("fact-panel-body").hidden = false;
    $("map").dataset.fact = body.fact.text;
    this.show(this.viewer.shownStep, this.viewer.following);
  }

  clear(forget = true) {
    this.asked++;
    if (forget) $("fact-error").textContent = "";
    this.fact = null;
    this.holders = null;
    this.byName = new Map();
    this.viewer.town.colourOf = null;
    $("fact-panel-body").hidden = true;
    delete $("map").dataset.fact;
    this.describe();
    this.viewer.town.request();
  }

  // The holder record of a resident if it holds the fact at `step`, else null.
  heldAt(name, step) {
    const h = this.byName.get(name);
    return h && h.step <= step ? h : null;
  }

  // How a resident is drawn at the step shown (town.js asks each frame).
  paint(i) {
    const r = this.viewer.residents[i];
    if (!r || !this.holders) return null;
    const holds = this.heldAt(r.name, this.viewer.shownStep);
    if (r.name === this.holders.source) {
      return { fill: holds ? FACT_COLOURS.source : FACT_COLOURS.not, ring: FACT_COLOURS.ring };
    }
    return { fill: holds ? FACT_COLOURS.holds : FACT_COLOURS.not };
  }

  // The count and legend at `step`; live, the holders read again as the run goes on.
  show(step, live) {
    if (!this.holders) return;
    if (live && step > this.holders.step && Date.now() - this.readAt > REREAD_MS) this.read();
    const present = this.viewer.residents.filter((r) => r.arrived_step <= step && (r.left_step == null || step < r.left_step));
    const holding = present.filter((r) => this.heldAt(r.name, step)).length;
    const count = $("fact-count");
    count.textContent = `${holding} of ${present.length} hold it at step ${step}`;
    count.dataset.holding = String(holding);
    const source = this.holders.source;
    $("fact-source").textContent = source
      ? `source: ${source}${this.heldAt(source, step) ? "" : " (does not hold it yet)"}`
      : "nobody holds it yet";
    this.describe();
    this.viewer.town.request();
  }

  // The selected resident's line: whether it holds the fact, since when, who told it.
  describe() {
    const line = $("resident-fact");
    const i = this.viewer.selected ?? -1;
    const r = i >= 0 ? this.viewer.residents[i] : null;
    if (!this.holders || !r) {
      line.hidden = true;
      return;
    }
    const step = this.viewer.shownStep;
    const h = this.heldAt(r.name, step);
    const fact = `“${this.holders.fact.text}”`;
    let text;
    if (!h) text = `Does not hold ${fact} at step ${step}.`;
    else {
      const teller = h.told_by ? `told by ${h.told_by}` : r.name === this.holders.source ? "the source" : "told by nobody it names";
      text = `Holds ${fact} since step ${h.step} (${clock(h.sim_time)}), ${teller}.`;
    }
    line.textContent = text;
    line.hidden = false;
  }
}
