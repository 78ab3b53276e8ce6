// The viewer by keyboard: on the focused map, the arrows pan and + / − zoom; Escape closes
// the resident's panel (focus back on the map); the resident list opens a resident's
// panel and brings it into view. The buttons and the slider are the browser's own.

const PAN_TILES = 4; // an arrow press pans this many tiles

export function wireKeys(viewer, zoomBy) {
  const wrap = document.getElementById("map-wrap");
  wrap.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const step = Math.max(40, viewer.town.tile * PAN_TILES);
    const pans = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (pans[event.key]) {
      wrap.scrollBy(...pans[event.key]);
    } else if (event.key === "+" || event.key === "=") {
      zoomBy(1);
    } else if (event.key === "-" || event.key === "_") {
      zoomBy(-1);
    } else {
      return;
    }
    event.preventDefault();
  });
  document.addEventListener("keydown", (event) => {
    const panel = document.getElementById("resident-panel");
    if (event.key !== "Escape" || panel.hidden) return;
    document.getElementById("resident-close").click();
    wrap.focus();
  });
  const pick = document.getElementById("resident-pick");
  pick.addEventListener("change", () => {
    const i = viewer.index.get(pick.value);
    if (i === undefined) return;
    viewer.select(i);
    const state = viewer.state;
    if (state) viewer.town.keepInView(wrap, state.tiles[2 * i], state.tiles[2 * i + 1]);
  });
}

// The resident list: one option a resident, by name (again when a newcomer joins).
export function listResidents(residents) {
  const pick = document.getElementById("resident-pick");
  const names = residents.map((r) => r.name).sort();
  const first = new Option("a resident…", "");
  pick.replaceChildren(first, ...names.map((name) => new Option(name, name)));
}
