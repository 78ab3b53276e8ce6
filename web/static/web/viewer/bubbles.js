// Speech bubbles: the line a talking resident says at the step shown, live and in replay.
// A conversation is logged whole when it is held (its lines, at the step it began); its
// lines are then said one every STEPS_PER_LINE steps while the pair stays in it.

import { getJSON, itemsOf } from "./api.js";

const STEPS_PER_LINE = 2;
const TEXT_MAX = 60; // characters of a line drawn; the resident's panel has it whole

export class Bubbles {
  constructor(api) {
    this.api = api;
    this.lines = new Map(); // conversation number -> its lines
    this.byPair = new Map(); // "a|b" -> the pair's conversation last found
    this.asked = 0;
  }

  // The bubbles for `state` at `step`: [{speaker index, text}], for each pair talking.
  async at(state, step, index) {
    const asked = ++this.asked;
    const pairs = [];
    state.partners.forEach((p, i) => {
      if (p > i && state.partners[p] === i) pairs.push([i, p]);
    });
    if (!pairs.length) return [];
    const names = [...index.keys()];
    const bubbles = [];
    for (const [a, b] of pairs) {
      const talk = await this.latest(names[a], names[b], step);
      if (asked !== this.asked) return null; // another step was shown meanwhile
      if (!talk) continue;
      const k = Math.floor((step - talk.step) / STEPS_PER_LINE);
      const line = talk.lines[k];
      if (!line || !index.has(line.speaker)) continue;
      const text = line.text.length > TEXT_MAX ? `${line.text.slice(0, TEXT_MAX - 1)}…` : line.text;
      bubbles.push({ i: index.get(line.speaker), text });
    }
    return bubbles;
  }

  // The pair's latest conversation begun at or before `step`, with its lines: the one
  // found last while `step` is within its lines (a pair does not talk again so soon).
  async latest(a, b, step) {
    const known = this.byPair.get(`${a}|${b}`);
    if (known && known.step <= step && step < known.step + (known.lines.length + 1) * STEPS_PER_LINE) {
      return known;
    }
    const page = await getJSON(`${this.api}/conversations/`, { participant: a, step_max: step, limit: 1000 });
    const held = itemsOf(page).filter((c) => c.participants.includes(b));
    const talk = held[0]; // the API lists them newest first
    if (!talk) return null;
    if (!this.lines.has(talk.number)) {
      const whole = await getJSON(`${this.api}/conversations/${talk.number}/`);
      this.lines.set(talk.number, whole.lines);
    }
    const found = { step: talk.step, lines: this.lines.get(talk.number) };
    this.byPair.set(`${a}|${b}`, found);
    return found;
  }
}
