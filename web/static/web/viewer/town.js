// Drawing the town on a <canvas>: the map from its layers (once, to an offscreen canvas),
// then the residents each frame (people.js), moving smoothly from tile to tile.

import { PlaceNames, overlaps } from "./labels.js";
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

export class TownView {
  constructor(canvas, map) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.map = map;
    const size = map.width * map.height;
    this.walls = decodeRuns(map.collision, size);
    this.sectorOf = decodeRuns(map.sector_tiles, size);
    this.arenaOf = decodeRuns(map.arena_tiles, size);
    this.names = new PlaceNames(map, this.sectorOf, this.arenaOf);
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
    this.names.layout(g, t);
    this.labelLayer = document.createElement("canvas");
    this.labelLayer.width = off.width;
    this.labelLayer.height = off.height;
    this.placeLabels(this.standing());
    return off;
  }

  // The names placed where the figures leave room (labels.js), on the canvas copied under
  // the residents each frame. `town.labels` are their boxes.
  placeLabels(figures) {
    this.labels = this.names.place(figures);
    this.names.draw(this.labelLayer, this.ratio);
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

  // Whether a figure now stands on a name: then the names are placed again.
  relabel() {
    if (!this.labelLayer) return;
    const figures = this.standing();
    if (this.labels.some((l) => figures.some((f) => overlaps(l, f)))) this.placeLabels(figures);
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
