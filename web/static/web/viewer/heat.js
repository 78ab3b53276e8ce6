// The heat map: where the residents stood over the sim hour up to the step shown, each
// tile by how many resident-steps it held, read from the replay (live and in replay).

import { applyFrame, stateAt } from "./frames.js";

const EVERY = 6; // live, the map is counted again every this many steps

// Resident-steps per tile over steps (from, to]: {counts: Map(tile index -> n), max}.
async function count(chunkOf, from, to, present, width) {
  const counts = new Map();
  let chunk = await chunkOf(from);
  const state = stateAt(chunk, from);
  let next = chunk.steps.findIndex((frame) => frame.step > from);
  for (let step = from + 1; step <= to; step++) {
    if (step > chunk.to_step) {
      chunk = await chunkOf(step);
      next = 0;
    }
    while (next >= 0 && next < chunk.steps.length && chunk.steps[next].step <= step) {
      if (chunk.steps[next].step === step) applyFrame(state, chunk.steps[next]);
      next++;
    }
    for (let i = 0; 2 * i < state.tiles.length; i++) {
      if (!present(i, step)) continue;
      const tile = state.tiles[2 * i + 1] * width + state.tiles[2 * i];
      counts.set(tile, (counts.get(tile) || 0) + 1);
    }
  }
  return { counts, max: Math.max(1, ...counts.values()) };
}

export class HeatMap {
  constructor(town, chunkOf, present, stepsPerHour) {
    this.town = town;
    this.chunkOf = chunkOf;
    this.present = present;
    this.span = stepsPerHour;
    this.on = false;
    this.asked = 0;
  }

  toggle(step, live) {
    this.on = !this.on;
    this.at = undefined;
    this.show(step, live);
    return this.on;
  }

  async show(step, live) {
    if (!this.on) {
      if (this.town.heat) {
        this.town.heat = null;
        this.town.request();
      }
      return;
    }
    if (live && this.at !== undefined && step - this.at < EVERY && step >= this.at) return;
    this.at = step;
    const asked = ++this.asked;
    const from = Math.max(0, step - this.span);
    const heat = await count(this.chunkOf, from, step, this.present, this.town.map.width);
    if (asked !== this.asked || !this.on) return; // another step was shown meanwhile
    this.town.heat = { ...heat, from, to: step };
    this.town.request();
  }
}
