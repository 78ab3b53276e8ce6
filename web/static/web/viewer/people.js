// The residents as characters the page draws itself (no outside art): a small pixel-art
// person whose skin, hair, hair style, shirt and trousers come from a stable hash of the
// name, so a resident looks the same on every page and residents are told apart at a
// glance; and the captions saying what each is doing.

// The figure, 8 by 12 pixels: the head (one of the hair styles) over the body. H hair,
// S skin, E eye, T shirt, P trousers or skirt (C a cap of the same cloth), B shoes.
const HEADS = {
  short: ["..HHHH..", ".HHHHHH.", ".SSSSSS.", ".SESSES.", "..SSSS.."],
  long: ["..HHHH..", ".HHHHHH.", "HHSSSSHH", "HSESSESH", "HHSSSSHH"],
  bun: ["...HH...", "..HHHH..", ".HSSSSH.", ".SESSES.", "..SSSS.."],
  spiky: [".H.HH.H.", ".HHHHHH.", ".SSSSSS.", ".SESSES.", "..SSSS.."],
  cap: ["..CCCC..", ".CCCCCCC", ".SSSSSS.", ".SESSES.", "..SSSS.."],
};
const BODY = [".TTTTTT.", "TTTTTTTT", "TTTTTTTT", "STTTTTTS"];
const LEGS = {
  trousers: [".PPPPPP.", ".PP..PP.", ".BB..BB."],
  skirt: [".PPPPPP.", "PPPPPPPP", "..B..B.."],
};
const SKIN = ["#f6d3b3", "#eec19a", "#d9a27a", "#b97f57", "#8d5a3b", "#5f3b27"];
const HAIR = ["#1f1b18", "#3b2a1e", "#6b4a2f", "#a0522d", "#d8b25a", "#c9c3b8", "#e08a3c"];
const TROUSERS = ["#2f4b7c", "#3a3a3a", "#7a6a4f", "#4b3b5c", "#1f4d3a"];
const EYE = "#1f2a2e";
const SHOES = "#2a211c";
const OUTLINE = "#1f2a2e";
// The sprite's size in figure pixels, its outline included, and where in it the point a
// resident stands at (the middle of the torso) falls.
export const SPRITE_W = 10;
export const SPRITE_H = 14;
export const CENTRE_X = 5;
export const CENTRE_Y = 8;
// A figure pixel is this share of a resident's radius (the sprite is 2 radii wide).
export const PIXEL = 0.2;
// A ring (colour by fact) around a resident: this many radii from its point, behind it.
export const RING = 1.25;
// Captions are drawn from this tile size on, cut to this many characters.
export const CAPTIONS_FROM = 14;
export const CAPTION_MAX = 24;

function fnv(text, seed) {
  let h = seed;
  for (const c of text) h = Math.imul(h ^ c.codePointAt(0), 16777619) >>> 0;
  return h;
}

// A resident's own colour, from its name: its shirt (and its dot on the minimap),
// residents of one town told apart by hue.
export function residentColour(name) {
  const h = fnv(name, 2166136261);
  return `hsl(${h % 360}, ${55 + (h >>> 9) % 25}%, ${42 + (h >>> 17) % 12}%)`;
}

// How a resident looks: every part from the name (a second hash, so the parts do not
// follow the shirt's hue).
export function lookOf(name) {
  const h = fnv(name, 0x9e3779b9);
  const styles = Object.keys(HEADS);
  return {
    shirt: residentColour(name),
    skin: SKIN[h % SKIN.length],
    hair: HAIR[(h >>> 4) % HAIR.length],
    trousers: TROUSERS[(h >>> 8) % TROUSERS.length],
    style: styles[(h >>> 12) % styles.length],
    legs: (h >>> 16) % 3 === 0 ? "skirt" : "trousers",
  };
}

// The look drawn once to a small canvas (one pixel a figure pixel, with a dark outline),
// then scaled to each frame's size without smoothing.
function spriteOf(look) {
  const rows = [...HEADS[look.style], ...BODY, ...LEGS[look.legs]];
  const colours = { H: look.hair, S: look.skin, E: EYE, T: look.shirt, P: look.trousers, C: look.trousers, B: SHOES };
  const canvas = document.createElement("canvas");
  canvas.width = SPRITE_W;
  canvas.height = SPRITE_H;
  const g = canvas.getContext("2d");
  const filled = (x, y) => rows[y]?.[x] !== undefined && rows[y][x] !== ".";
  g.fillStyle = OUTLINE;
  for (let y = -1; y <= rows.length; y++) {
    for (let x = -1; x <= 8; x++) {
      if (filled(x, y)) continue;
      if (filled(x - 1, y) || filled(x + 1, y) || filled(x, y - 1) || filled(x, y + 1)) {
        g.fillRect(x + 1, y + 1, 1, 1);
      }
    }
  }
  rows.forEach((row, y) => {
    [...row].forEach((c, x) => {
      if (c === ".") return;
      g.fillStyle = colours[c];
      g.fillRect(x + 1, y + 1, 1, 1);
    });
  });
  return canvas;
}

const sprites = new Map(); // name (and shirt, when painted) -> its sprite

// Draw resident `name` standing at (x, y) (CSS pixels), `radius` its size; the selected
// one on a yellow ring. `paint` ({fill, ring?}, colour by fact) dresses it in `fill` and
// rings it in `ring`.
export function drawPerson(g, name, x, y, radius, selected, paint) {
  const key = paint ? `${name}|${paint.fill}` : name;
  let sprite = sprites.get(key);
  if (!sprite) sprites.set(key, (sprite = spriteOf(paint ? { ...lookOf(name), shirt: paint.fill } : lookOf(name))));
  const u = radius * PIXEL;
  if (paint?.ring) {
    g.beginPath();
    g.arc(x, y, RING * radius, 0, Math.PI * 2);
    g.strokeStyle = paint.ring;
    g.lineWidth = Math.max(2, radius / 3);
    g.stroke();
  }
  g.beginPath(); // its shadow, or for the selected one a yellow ring, at its feet
  g.ellipse(x, y + 5.6 * u, selected ? 6 * u : 4 * u, selected ? 2.2 * u : 1.2 * u, 0, 0, Math.PI * 2);
  g.fillStyle = selected ? "#f2c14e" : "rgba(31, 42, 46, 0.3)";
  g.fill();
  if (selected) {
    g.strokeStyle = "#1f2a2e";
    g.lineWidth = Math.max(1, u / 2);
    g.stroke();
  }
  g.imageSmoothingEnabled = false;
  g.drawImage(sprite, x - CENTRE_X * u, y - CENTRE_Y * u, SPRITE_W * u, SPRITE_H * u);
  g.imageSmoothingEnabled = true; // the map's copy is smoothed, as before
}

// A caption's text: the action, cut to CAPTION_MAX characters.
export function captionText(action) {
  if (!action) return "";
  return action.length > CAPTION_MAX ? `${action.slice(0, CAPTION_MAX - 1)}…` : action;
}

function overlaps(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

// What each resident is doing, under its feet or else beside it: the selected one first,
// then the others in order. A spot clear of other captions and of the place names is
// taken, else one clear of captions (its white box over a name), else none: no two
// captions meet; each kept inside the map (`width` by `height`), so none is cut at its
// edge. Returns the captions drawn: {i, text, x, y, w, h} in CSS pixels.
export function drawCaptions(g, residents, where, radius, selected, labels, width, height) {
  const size = Math.round(Math.max(11, Math.min(14, radius * 0.6)));
  g.font = `${size}px system-ui`;
  g.textAlign = "left";
  g.textBaseline = "middle";
  const order = residents.map((_, i) => i);
  if (selected >= 0) order.unshift(...order.splice(selected, 1));
  const placed = [];
  for (const i of order) {
    const text = captionText(residents[i].action);
    if (!where[i] || !text) continue;
    const [x, y] = where[i];
    const w = g.measureText(text).width + 6;
    const h = size + 4;
    const inside = (left, top) => ({
      i,
      text,
      x: Math.max(0, Math.min(left, width - w)),
      y: Math.max(0, Math.min(top, height - h)),
      w,
      h,
    });
    const spots = [
      inside(x - w / 2, y + (SPRITE_H - CENTRE_Y) * radius * PIXEL + 1),
      inside(x + radius * 1.1, y - h / 2),
      inside(x - radius * 1.1 - w, y - h / 2), // beside it on the left, at the map's right edge
    ];
    const free = spots.filter((box) => !placed.some((other) => overlaps(box, other)));
    const box = free.find((b) => !labels.some((l) => overlaps(b, l))) || free[0];
    if (box) placed.push(box);
  }
  for (const { x, y, w, h, text } of placed) {
    g.fillStyle = "rgba(255, 255, 255, 0.9)";
    g.beginPath();
    g.roundRect(x, y, w, h, 3);
    g.fill();
    g.fillStyle = "#1f2a2e";
    g.fillText(text, x + 3, y + h / 2);
  }
  g.textAlign = "center";
  return placed;
}
