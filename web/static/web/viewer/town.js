// Drawing the town on a <canvas>: the map from its layers (once, to an offscreen canvas),
// then the residents each frame, moving smoothly from tile to tile.

const WALL = "#3d4247";
const GROUND = "#cfe0b4";
const MOVE_MS = 450;

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

export class TownView {
  constructor(canvas, map) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.map = map;
    const size = map.width * map.height;
    this.walls = decodeRuns(map.collision, size);
    this.sectorOf = decodeRuns(map.sector_tiles, size);
    this.arenaOf = decodeRuns(map.arena_tiles, size);
    this.residents = [];
    this.drawn = []; // where each resident was last drawn, for clicks
    this.links = [];
    this.selected = -1;
    this.tile = 8;
    this.pending = false;
  }

  setScale(tile) {
    this.tile = Math.max(4, Math.min(32, Math.round(tile)));
    const ratio = window.devicePixelRatio || 1;
    const w = this.map.width * this.tile;
    const h = this.map.height * this.tile;
    this.canvas.width = w * ratio;
    this.canvas.height = h * ratio;
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.ratio = ratio;
    this.background = this.drawMap();
    this.request();
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
        g.fillRect(x * t, y * t, t, t);
      }
    }
    // Objects: a darker inset square on each of their tiles.
    g.fillStyle = "rgba(60, 45, 30, 0.55)";
    for (const object of this.map.objects) {
      for (const [x, y] of object.tiles) g.fillRect(x * t + t * 0.2, y * t + t * 0.2, t * 0.6, t * 0.6);
    }
    // Names: sectors bold, arenas small, each at its label tile.
    g.textAlign = "center";
    g.textBaseline = "middle";
    g.lineWidth = 3;
    g.strokeStyle = "rgba(255, 255, 255, 0.85)";
    const label = (place, font, colour) => {
      const [x, y] = place.label_tile;
      g.font = font;
      g.fillStyle = colour;
      g.strokeText(place.name, (x + 0.5) * t, (y + 0.5) * t);
      g.fillText(place.name, (x + 0.5) * t, (y + 0.5) * t);
    };
    const small = Math.max(8, Math.round(t * 1.1));
    if (t >= 10) for (const arena of this.map.arenas) label(arena, `${small}px system-ui`, "#394046");
    for (const sector of this.map.sectors) label(sector, `bold ${small + 2}px system-ui`, "#1f2a2e");
    return off;
  }

  // New tiles for the residents: each walks from where it is drawn now.
  update(state, { animate = true } = {}) {
    const now = performance.now();
    state.tiles.forEach((_, k) => {
      if (k % 2) return;
      const i = k / 2;
      const r = this.residents[i] || (this.residents[i] = {});
      const [x, y] = [state.tiles[k], state.tiles[k + 1]];
      const at = this.positionOf(r, now);
      r.fromX = at ? at[0] : x;
      r.fromY = at ? at[1] : y;
      r.x = x;
      r.y = y;
      r.start = animate ? now : 0;
      r.initials = state.initials[i];
      r.emoji = state.emojis[i];
    });
    this.links = [];
    state.partners.forEach((p, i) => {
      if (p > i && state.partners[p] === i) this.links.push([i, p]);
      else if (p >= 0 && state.partners[p] !== i) this.links.push([i, p]);
    });
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
    let moving = false;
    const radius = Math.max(7, t * 0.85);
    const where = this.residents.map((r) => {
      const p = this.positionOf(r, now);
      if (r.start && now - r.start < MOVE_MS) moving = true;
      return [(p[0] + 0.5) * t, (p[1] + 0.5) * t];
    });
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
    g.textAlign = "center";
    g.textBaseline = "middle";
    g.lineWidth = 1.5;
    const font = `bold ${Math.round(radius * 0.95)}px system-ui`;
    const emojiFont = `${Math.round(radius * 1.3)}px sans-serif`;
    this.residents.forEach((r, i) => {
      const [x, y] = where[i];
      g.beginPath();
      g.arc(x, y, radius, 0, Math.PI * 2);
      g.fillStyle = i === this.selected ? "#f2c14e" : "#2f6f4f";
      g.fill();
      g.strokeStyle = "#fff";
      g.stroke();
      g.fillStyle = i === this.selected ? "#1f2a2e" : "#fff";
      g.font = font;
      g.fillText(r.initials, x, y + 0.5);
      if (r.emoji) {
        g.font = emojiFont;
        g.fillText(r.emoji, x + radius, y - radius * 1.1);
      }
    });
    this.drawn = where;
    this.radius = radius;
    if (moving) this.request();
  }

  // The resident drawn at a point of the canvas (CSS pixels), or -1.
  residentAt(px, py) {
    let best = -1;
    let bestDistance = (this.radius * 1.4) ** 2;
    this.drawn.forEach(([x, y], i) => {
      const d = (x - px) ** 2 + (y - py) ** 2;
      if (d < bestDistance) {
        best = i;
        bestDistance = d;
      }
    });
    return best;
  }
}
