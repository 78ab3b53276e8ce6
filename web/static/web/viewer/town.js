// Drawing the town on a <canvas>: the map from its layers (once, to an offscreen canvas),
// then the residents each frame (people.js), moving smoothly from tile to tile.

import { CAPTIONS_FROM, CENTRE_X, CENTRE_Y, PIXEL, SPRITE_H, SPRITE_W, drawCaptions, drawPerson, lookOf } from "./people.js";

const WALL = "#3d4247";
const GROUND = "#cfe0b4";
const MOVE_MS = 450;
const MAX_TILE = 32;
// A small town fits its box with tiles larger than MAX_TILE: `+` still zooms it, to this
// many times its fit.
const MAX_ZOOM = 3;
const RADIUS_MAX = 26; // pixels: a figure 52 wide and 73 tall
// The largest canvas side, in device pixels, that Chromium copies faithfully: a map canvas
// wider than this was drawn shifted and smeared (headless, 1440 px wide, zoomed all in).
const MAX_CANVAS = 4096;
// The residents' emoji: the page's own font (a subset of Noto Color Emoji, viewer.css), so
// they draw on a machine without an emoji font; the system's for any emoji it lacks.
export const EMOJI_FONT = '"Smallville Emoji", "Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji"';
// Which names are laid out first: sectors when zoomed out, arenas from this tile size on.
const ARENAS_FROM = 9;
const ARENAS_FIRST_FROM = 16;
// Place names: as large as the tile says, within these sizes (px), shrunk or wrapped to fit
// inside their place, on a light backdrop, placed where no resident stands.
const LABEL_MIN = 8;
const LABEL_MAX = 16;
const LABEL_BACKDROP = "rgba(255, 255, 255, 0.85)";

// Run-length decoding: value, count, value, count, ... (as /api/towns/{id}/map/ sends).
export function decodeRuns(runs, size) {
  const out = new Int32Array(size);
  let at = 0;
  for (let i = 0; i < runs.length; i += 2) {
    out.fill(runs[i], at, at + runs[i + 1]);
    at += runs[i + 1];
  }
  return out;
}

function hue(index) {
  return (index * 137.508) % 360; // the golden angle: neighbours get distant hues
}

export { residentColour } from "./people.js";

// Where residents standing on one tile are drawn: fanned out around it on a ring, so each
// can be seen and clicked (`where` holds pixel centres, changed in place).
function fanOut(where, radius) {
  const groups = new Map();
  where.forEach((point, i) => {
    if (!point) return; // not in the town at the step shown
    const key = `${Math.round(point[0])},${Math.round(point[1])}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(i);
  });
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const ring = radius * (members.length === 2 ? 1.05 : 1.1 / Math.sin(Math.PI / members.length));
    members.forEach((i, k) => {
      const angle = Math.PI + (2 * Math.PI * k) / members.length;
      where[i] = [where[i][0] + ring * Math.cos(angle), where[i][1] + ring * Math.sin(angle)];
    });
  }
}

function overlaps(a, b) {
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

export class TownView {
  constructor(canvas, map) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.map = map;
    const size = map.width * map.height;
    this.walls = decodeRuns(map.collision, size);
    this.sectorOf = decodeRuns(map.sector_tiles, size);
    this.arenaOf = decodeRuns(map.arena_tiles, size);
    this.sectorArea = areas(this.sectorOf, map.sectors.length);
    this.arenaArea = areas(this.arenaOf, map.arenas.length);
    this.sectorExtent = extents(this.sectorOf, map.sectors.length, map.width);
    this.arenaExtent = extents(this.arenaOf, map.arenas.length, map.width);
    this.residents = [];
    this.drawn = []; // where each resident was last drawn (null: not drawn), for clicks
    this.links = [];
    this.labels = []; // the place names laid out: {name, kind, x, y, w, h} in CSS pixels
    this.selected = -1;
    this.tile = 8;
    this.fitTile = 8;
    this.pending = false;
  }

  // The tile size at which the map fills its container's width (the least zoom).
  fit(width) {
    this.fitTile = Math.max(1, width / this.map.width);
    this.setScale(this.fitTile);
  }

  setScale(tile) {
    const ratio = window.devicePixelRatio || 1;
    const most = Math.min(
      Math.max(MAX_TILE, this.fitTile * MAX_ZOOM),
      Math.floor(MAX_CANVAS / ratio / Math.max(this.map.width, this.map.height)),
    );
    this.tile = Math.min(Math.max(most, this.fitTile), Math.max(this.fitTile, tile));
    const w = this.map.width * this.tile;
    const h = this.map.height * this.tile;
    this.canvas.width = Math.round(w * ratio);
    this.canvas.height = Math.round(h * ratio);
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.ratio = ratio;
    this.background = this.drawMap();
    this.request();
  }

  // Scroll `wrap` (the map's scrolling container) so tile (x, y) stays in its middle
  // three fifths: the camera of a followed resident, moved only when it nears an edge.
  keepInView(wrap, x, y) {
    const px = (x + 0.5) * this.tile;
    const py = (y + 0.5) * this.tile;
    const mx = wrap.clientWidth / 5;
    const my = wrap.clientHeight / 5;
    if (px < wrap.scrollLeft + mx || px > wrap.scrollLeft + wrap.clientWidth - mx) {
      wrap.scrollLeft = px - wrap.clientWidth / 2;
    }
    if (py < wrap.scrollTop + my || py > wrap.scrollTop + wrap.clientHeight - my) {
      wrap.scrollTop = py - wrap.clientHeight / 2;
    }
  }

  get fitted() {
    return Math.abs(this.tile - this.fitTile) < 1e-6;
  }

  drawMap() {
    const { width, height } = this.map;
    const t = this.tile;
    const off = document.createElement("canvas");
    off.width = width * t * this.ratio;
    off.height = height * t * this.ratio;
    const g = off.getContext("2d");
    g.scale(this.ratio, this.ratio);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const arena = this.arenaOf[i];
        const sector = this.sectorOf[i];
        if (this.walls[i]) g.fillStyle = WALL;
        else if (arena) g.fillStyle = `hsl(${hue(arena)}, 45%, 78%)`;
        else if (sector) g.fillStyle = `hsl(${hue(sector + 50)}, 30%, 88%)`;
        else g.fillStyle = GROUND;
        // Whole device pixels, so a fractional tile size leaves no seams between tiles.
        const x0 = Math.round(x * t * this.ratio) / this.ratio;
        const y0 = Math.round(y * t * this.ratio) / this.ratio;
        const x1 = Math.round((x + 1) * t * this.ratio) / this.ratio;
        const y1 = Math.round((y + 1) * t * this.ratio) / this.ratio;
        g.fillRect(x0, y0, x1 - x0, y1 - y0);
      }
    }
    // Objects: a darker inset square on each of their tiles.
    g.fillStyle = "rgba(60, 45, 30, 0.55)";
    for (const object of this.map.objects) {
      for (const [x, y] of object.tiles) g.fillRect(x * t + t * 0.2, y * t + t * 0.2, t * 0.6, t * 0.6);
    }
    this.labelPlaces = this.layoutLabels(g);
    this.labelLayer = document.createElement("canvas");
    this.labelLayer.width = off.width;
    this.labelLayer.height = off.height;
    this.placeLabels(this.standing());
    return off;
  }

  // Where each resident in the town stands once its walk ends (fanned out as drawn): the
  // boxes of their figures, in CSS pixels.
  standing() {
    const t = this.tile;
    const where = this.residents.map((r) => (r.present && r.x !== undefined ? [(r.x + 0.5) * t, (r.y + 0.5) * t] : null));
    fanOut(where, this.size);
    const u = this.size * PIXEL;
    return where.filter(Boolean).map(([x, y]) => ({ x: x - CENTRE_X * u, y: y - CENTRE_Y * u, w: SPRITE_W * u, h: (SPRITE_H + 1) * u }));
  }

  // The residents' size (people.js): with the map's, up to RADIUS_MAX, as on a small
  // town's large tiles a figure would fill a room.
  get size() {
    return Math.min(RADIUS_MAX, this.tile * 1.1);
  }

  // Each name at a spot where no figure stands (`figures`): the one it has while it stays
  // free, else the free one nearest its label tile at its largest size, else at a smaller
  // size; where none is free of figures, at the spot it would have without them (the
  // figure in front). None over another; a name with no spot free of names is left out.
  // `town.labels` are the boxes.
  placeLabels(figures) {
    const placed = [];
    for (const name of this.labelPlaces) {
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
    this.drawLabels();
  }

  // Whether a figure now stands on a name: then the names are placed again.
  relabel() {
    if (!this.labelPlaces) return;
    const figures = this.standing();
    if (this.labels.some((l) => figures.some((f) => overlaps(l, f)))) this.placeLabels(figures);
  }

  // The names on a canvas of their own, copied under the residents each frame (and again
  // when they move): each on its backdrop, its lines centred.
  drawLabels() {
    const layer = this.labelLayer;
    const g = layer.getContext("2d");
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, layer.width, layer.height);
    g.scale(this.ratio, this.ratio);
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

  // The place names to draw, in the order they are placed (boxes measured as drawn, with
  // their backdrop): sectors when zoomed out, arenas too as one zooms in (first from
  // ARENAS_FIRST_FROM), larger places first. Each stays inside its place: its size follows
  // the tile's, shrunk or cut in two lines where the place is narrow; its spots are inside
  // the place, nearest its label tile first. A name with no room is left out.
  layoutLabels(g) {
    const t = this.tile;
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
    return names;
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

  // The address of the place at a tile, as the API names a resident's place: its arena,
  // else its sector, else the world.
  placeAt(x, y) {
    if (x < 0 || y < 0 || x >= this.map.width || y >= this.map.height) return this.map.world_name;
    const i = y * this.map.width + x;
    const place = this.map.arenas[this.arenaOf[i] - 1] || this.map.sectors[this.sectorOf[i] - 1];
    return place ? place.address : this.map.world_name;
  }

  // New tiles for the residents: each walks from where it is drawn now.
  update(state, { animate = true } = {}) {
    const now = performance.now();
    state.tiles.forEach((_, k) => {
      if (k % 2) return;
      const i = k / 2;
      const r = this.residents[i] || (this.residents[i] = {});
      const [x, y] = [state.tiles[k], state.tiles[k + 1]];
      // One who comes back into view (a replay scrubbed back) stands, not glides.
      const at = r.present === false ? null : this.positionOf(r, now);
      r.present = state.present ? state.present[i] : true;
      r.fromX = at ? at[0] : x;
      r.fromY = at ? at[1] : y;
      r.x = x;
      r.y = y;
      r.start = animate ? now : 0;
      if (r.name !== state.names[i]) r.look = lookOf(state.names[i]); // for scripts and tests
      r.name = state.names[i];
      r.colour = state.colours[i];
      r.emoji = state.emojis[i];
      r.action = state.actions[i];
    });
    this.links = [];
    const shown = (i) => this.residents[i] && this.residents[i].present;
    state.partners.forEach((p, i) => {
      if (!shown(i) || (p >= 0 && !shown(p))) return;
      if (p > i && state.partners[p] === i) this.links.push([i, p]);
      else if (p >= 0 && state.partners[p] !== i) this.links.push([i, p]);
    });
    this.relabel();
    this.request();
  }

  positionOf(r, now) {
    if (r.x === undefined) return null;
    const f = r.start ? Math.min(1, (now - r.start) / MOVE_MS) : 1;
    return [r.fromX + (r.x - r.fromX) * f, r.fromY + (r.y - r.fromY) * f];
  }

  request() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame((now) => this.frame(now));
  }

  frame(now) {
    this.pending = false;
    const g = this.ctx;
    const t = this.tile;
    g.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
    g.drawImage(this.background, 0, 0, this.map.width * t, this.map.height * t);
    if (this.heat) this.drawHeat(g, t);
    // The names under the residents: placed where none stands, so a figure hides a name
    // only where its place has no room beside it.
    g.drawImage(this.labelLayer, 0, 0, this.map.width * t, this.map.height * t);
    let moving = false;
    const radius = this.size;
    // Residents not in the town at the step shown (not arrived yet, or left) are not drawn.
    const where = this.residents.map((r) => {
      if (!r.present) return null;
      const p = this.positionOf(r, now);
      if (r.start && now - r.start < MOVE_MS) moving = true;
      return [(p[0] + 0.5) * t, (p[1] + 0.5) * t];
    });
    fanOut(where, radius);
    // Conversations in progress: a link between the speakers.
    g.strokeStyle = "#d0402b";
    g.lineWidth = Math.max(2, t / 4);
    g.setLineDash([6, 4]);
    for (const [a, b] of this.links) {
      g.beginPath();
      g.moveTo(...where[a]);
      g.lineTo(...where[b]);
      g.stroke();
    }
    g.setLineDash([]);
    // Top to bottom, so one standing lower is drawn over one behind it.
    const order = this.residents.map((_, i) => i).filter((i) => where[i]);
    order.sort((a, b) => where[a][1] - where[b][1]);
    for (const i of order) {
      const paint = this.colourOf?.(i); // an override, {fill, ring?}: the shirt and a ring (facts.js)
      drawPerson(g, this.residents[i].name, where[i][0], where[i][1], radius, i === this.selected, paint);
    }
    g.textAlign = "center";
    g.textBaseline = "middle";
    g.font = `${Math.round(radius * 1.4)}px ${EMOJI_FONT}`;
    g.fillStyle = "#000"; // opaque: a colour glyph takes the fill's alpha
    for (const i of order) {
      if (this.residents[i].emoji) g.fillText(this.residents[i].emoji, where[i][0] + radius * 1.3, where[i][1] - radius * 1.3);
    }
    this.captions = t >= CAPTIONS_FROM ? drawCaptions(g, this.residents, where, radius, this.selected, this.labels, this.map.width * t, this.map.height * t) : [];
    for (const { i, text } of this.bubbles || []) if (where[i]) this.bubble(g, where[i], radius, text);
    this.drawn = where;
    this.radius = radius;
    this.onFrame?.();
    if (moving) this.request();
  }

  // Each tile stood on, in red as deep as the share of the busiest tile's resident-steps.
  drawHeat(g, t) {
    const { counts, max } = this.heat;
    const width = this.map.width;
    for (const [tile, n] of counts) {
      g.fillStyle = `rgba(214, 48, 39, ${(0.2 + (0.7 * n) / max).toFixed(3)})`;
      g.fillRect((tile % width) * t, Math.floor(tile / width) * t, t, t);
    }
  }

  // A speech bubble above the point (x, y): the line, on white, with a tail.
  bubble(g, [x, y], radius, text) {
    const size = Math.max(11, Math.min(15, radius * 1.2));
    g.font = `${size}px system-ui`;
    const w = g.measureText(text).width + size;
    const h = size * 1.6;
    const left = Math.max(2, x - w / 2);
    const top = y - radius * 2.2 - h;
    g.fillStyle = "#fff";
    g.strokeStyle = "#1f2a2e";
    g.lineWidth = 1;
    g.beginPath();
    g.roundRect(left, top, w, h, size / 2);
    g.moveTo(x - size / 3, top + h);
    g.lineTo(x, top + h + size / 2);
    g.lineTo(x + size / 3, top + h);
    g.fill();
    g.stroke();
    g.fillStyle = "#1f2a2e";
    g.textAlign = "left";
    g.fillText(text, left + size / 2, top + h / 2);
    g.textAlign = "center";
  }

  // The resident drawn at a point of the canvas (CSS pixels), or -1: the one whose figure
  // (head to feet) holds the point, else the nearest within a finger's width.
  residentAt(px, py) {
    const u = this.radius * PIXEL;
    let best = -1;
    let bestDistance = Infinity;
    const finger = Math.max(this.radius * 1.4, 8) ** 2;
    this.drawn.forEach((point, i) => {
      if (!point) return; // not in the town at this step
      const [x, y] = point;
      const d = (x - px) ** 2 + (y - py) ** 2;
      const inside = Math.abs(px - x) <= 4 * u && py >= y - 7 * u && py <= y + 5 * u;
      if ((inside || d < finger) && d < bestDistance) {
        best = i;
        bestDistance = d;
      }
    });
    return best;
  }
}
