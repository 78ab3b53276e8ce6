// The replay's frames: a replay body's state at one of its steps (tiles, actions, emojis,
// partners), and one step's frame applied to a state.

// A replay body's state at one of its steps: tiles, actions, emojis, partners.
export function stateAt(chunk, step) {
  const state = {
    tiles: chunk.tiles.slice(),
    actions: chunk.actions.slice(),
    emojis: chunk.emojis.slice(),
    partners: chunk.partners.slice(),
  };
  for (const frame of chunk.steps) {
    if (frame.step > step) break;
    applyFrame(state, frame);
  }
  return state;
}

export function applyFrame(state, frame) {
  const m = frame.moved;
  for (let k = 0; k < m.length; k += 3) {
    state.tiles[2 * m[k]] = m[k + 1];
    state.tiles[2 * m[k] + 1] = m[k + 2];
  }
  for (const [i, action, emoji, partner] of frame.acted) {
    state.actions[i] = action;
    if (emoji !== null) state.emojis[i] = emoji;
    if (partner !== null) state.partners[i] = partner;
  }
}
