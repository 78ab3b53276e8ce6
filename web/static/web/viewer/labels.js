// The place names on the map: each inside its place, sized to it, none over another, and
// standing where no resident does (town.js lays them out at each zoom, places them again
// when a resident comes to stand on one).

// Which names are laid out first: sectors when zoomed out, arenas from this tile size on.
const ARENAS_FROM = 9;
const ARENAS_FIRST_FROM = 16;
// Place names: as large as the tile says, within these sizes (px), shrunk or wrapped to fit
// inside their place, on a light backdrop, placed where no resident stands.
const LABEL_MIN = 8;
const LABEL_MAX = 16;
const LABEL_BACKDROP = "rgba(255, 255, 255, 0.85)";

export function overlaps(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

// How many tiles each place of a layer has (layer values are place index + 1).
function areas(layer, count) {
  const out = new Int32Array(count);
  for (const v of layer) if (v) out[v - 1]++;
  return out;
}

// Each place's extent in tiles, {x0, y0, x1, y1} (x1, y1 past its last tile), or null.
function extents(layer, count, width) {
  const out = new Array(count).fill(null);
  layer.forEach((v, i) => {
    if (!v) return;
    const x = i % width;
    const y = (i - x) / width;
    const e = out[v - 1];
    if (!e) out[v - 1] = { x0: x, y0: y, x1: x + 1, y1: y + 1 };
    else {
      e.x0 = Math.min(e.x0, x);
      e.y0 = Math.min(e.y0, y);
      e.x1 = Math.max(e.x1, x + 1);
      e.y1 = Math.max(e.y1, y + 1);
    }
  });
  return out;
}

// A name as lines of at most `most` pixels: itself, else cut in two at the space that
// makes the longer line shortest; null if a line is still too long.
function wrapped(g, name, most) {
  if (g.measureText(name).width <= most) return [name];
  let best = null;
  let bestWidth = Infinity;
  for (let at = name.indexOf(" "); at > 0; at = name.indexOf(" ", at + 1)) {
    const lines = [name.slice(0, at), name.slice(at + 1)];
    const width = Math.max(...lines.map((line) => g.measureText(line).width));
    if (width < bestWidth) [best, bestWidth] = [lines, width];
  }
  return bestWidth <= most ? best : null;
}

export class PlaceNames {
  constructor(map, sectorOf, arenaOf) {
    this.map = map;
    this.sectorArea = areas(sectorOf, map.sectors.length);
    this.arenaArea = areas(arenaOf, map.arenas.length);
    this.sectorExtent = extents(sectorOf, map.sectors.length, map.width);
    this.arenaExtent = extents(arenaOf, map.arenas.length, map.width);
    this.places = []; // the names that may be drawn at this zoom, in the order placed
    this.labels = []; // the names placed: {name, kind, x, y, w, h, font, lines, ...}
  }

  // The place names to draw, in the order they are placed (boxes measured as drawn, with
  // their backdrop): sectors when zoomed out, arenas too as one zooms in (first from
  // ARENAS_FIRST_FROM), larger places first. Each stays inside its place: its size follows
  // the tile's, shrunk or cut in two lines where the place is narrow; its spots are inside
  // the place, nearest its label tile first. A name with no room is left out.
  layout(g, t) {
    const size = Math.min(LABEL_MAX, Math.max(LABEL_MIN, Math.round(t * 1.1)));
    const kinds = [["sector", this.map.sectors, this.sectorArea, this.sectorExtent, "bold ", size + 2]];
    if (t >= ARENAS_FROM) {
      const arenas = ["arena", this.map.arenas, this.arenaArea, this.arenaExtent, "", size];
      if (t >= ARENAS_FIRST_FROM) kinds.unshift(arenas);
      else kinds.push(arenas);
    }
    const pad = 2; // around the text, inside the backdrop
    const names = [];
    g.textAlign = "center"; // as drawn
    for (const [kind, places, area, extent, weight, largest] of kinds) {
      const order = places.map((_, i) => i).sort((a, b) => area[b] - area[a]);
      for (const i of order) {
        const e = extent[i];
        if (!area[i] || !e) continue;
        const [x0, y0] = [Math.ceil(e.x0 * t), Math.ceil(e.y0 * t)]; // whole pixels inside it
        const room = { x: x0, y: y0, w: Math.floor(e.x1 * t) - x0, h: Math.floor(e.y1 * t) - y0 };
        const [lx, ly] = places[i].label_tile;
        const options = this.labelShapes(g, places[i].name, weight, largest, room, pad).map((shape) => ({
          spots: this.labelSpots(shape, room, (lx + 0.5) * t, (ly + 0.5) * t).map((box) => ({ ...shape, ...box })),
        }));
        if (options.length) names.push({ name: places[i].name, kind, room, options, at: null });
      }
    }
    this.places = names;
  }

  // The fonts (from `largest` down to LABEL_MIN) at which the name fits `room`, on one
  // line or two, largest first: [{font, lines, lineHeight, pad, w, h}].
  labelShapes(g, name, weight, largest, room, pad) {
    const shapes = [];
    for (let size = largest; size >= LABEL_MIN; size--) {
      const font = `${weight}${size}px system-ui`;
      g.font = font;
      const lines = wrapped(g, name, room.w - 2 * pad);
      if (!lines) continue;
      const lineHeight = Math.ceil(size * 1.2);
      const w = Math.ceil(Math.max(...lines.map((line) => g.measureText(line).width))) + 2 * pad;
      const h = lines.length * lineHeight + 2 * pad;
      if (w <= room.w && h <= room.h) shapes.push({ font, lines, lineHeight, pad, w, h });
    }
    return shapes;
  }

  // Where a name's box may go inside its place: centred on its label tile, then the spots
  // of a grid over the place, nearest it first.
  labelSpots(shape, room, cx, cy) {
    const { w, h } = shape;
    // On whole pixels, so the backdrop covers its box to the edge.
    const within = (x, y) => ({
      x: Math.min(Math.max(Math.ceil(room.x), Math.round(x - w / 2)), Math.floor(room.x + room.w - w)),
      y: Math.min(Math.max(Math.ceil(room.y), Math.round(y - h / 2)), Math.floor(room.y + room.h - h)),
      w,
      h,
    });
    const spots = [within(cx, cy)];
    const stepX = Math.max(w / 2, room.w / 8);
    const stepY = Math.max(h, room.h / 8);
    for (let y = room.y + h / 2; y <= room.y + room.h - h / 2 + 0.5; y += stepY) {
      for (let x = room.x + w / 2; x <= room.x + room.w - w / 2 + 0.5; x += stepX) spots.push(within(x, y));
    }
    const distance = (b) => (b.x + w / 2 - cx) ** 2 + (b.y + h / 2 - cy) ** 2;
    spots.sort((a, b) => distance(a) - distance(b));
    return spots;
  }

  // Each name at a spot where no figure stands (`figures`): the one it has while it stays
  // free, else the free one nearest its label tile at its largest size, else at a smaller
  // size; where none is free of figures, at the spot it would have without them (the
  // figure in front). None over another; a name with no spot free of names is left out.
  place(figures) {
    const placed = [];
    for (const name of this.places) {
      const near = figures.filter((f) => overlaps(f, name.room));
      const free = (box) => !placed.some((other) => overlaps(box, other));
      const clear = (box) => free(box) && !near.some((f) => overlaps(box, f));
      let at = name.at && clear(name.at) ? name.at : null;
      for (const option of name.options) at ||= option.spots.find(clear);
      for (const option of name.options) at ||= option.spots.find(free);
      name.at = at || null;
      if (name.at) placed.push({ name: name.name, kind: name.kind, ...name.at, room: name.room });
    }
    this.labels = placed;
    return placed;
  }

  // The names on a canvas of their own, copied under the residents each frame (drawn again
  // when they move): each on its backdrop, its lines centred.
  draw(layer, ratio) {
    const g = layer.getContext("2d");
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, layer.width, layer.height);
    g.scale(ratio, ratio);
    g.textAlign = "center";
    g.textBaseline = "middle";
    for (const label of this.labels) {
      g.fillStyle = LABEL_BACKDROP;
      g.fillRect(label.x, label.y, label.w, label.h);
      g.font = label.font;
      g.fillStyle = label.kind === "sector" ? "#1f2a2e" : "#394046";
      label.lines.forEach((line, k) => {
        g.fillText(line, label.x + label.w / 2, label.y + label.pad + (k + 0.5) * label.lineHeight);
      });
    }
  }
}
