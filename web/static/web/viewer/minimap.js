// The minimap: the whole town small, the residents as dots and the part the map shows as
// a frame; a click there brings that part of the town into view.

const WIDTH = 200; // CSS pixels

export class Minimap {
  constructor(canvas, town, wrap) {
    this.canvas = canvas;
    this.town = town;
    this.wrap = wrap;
    const ratio = window.devicePixelRatio || 1;
    const height = Math.round((WIDTH * town.map.height) / town.map.width);
    canvas.width = WIDTH * ratio;
    canvas.height = height * ratio;
    canvas.style.width = `${WIDTH}px`;
    canvas.style.height = `${height}px`;
    this.ratio = ratio;
    canvas.addEventListener("click", (event) => {
      const box = canvas.getBoundingClientRect();
      const scale = this.scale();
      wrap.scrollLeft = (event.clientX - box.left) / scale - wrap.clientWidth / 2;
      wrap.scrollTop = (event.clientY - box.top) / scale - wrap.clientHeight / 2;
    });
    wrap.addEventListener("scroll", () => this.draw());
  }

  // CSS pixels of the minimap per CSS pixel of the map.
  scale() {
    return WIDTH / (this.town.map.width * this.town.tile);
  }

  draw() {
    const g = this.canvas.getContext("2d");
    const scale = this.scale();
    g.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
    g.drawImage(this.town.background, 0, 0, WIDTH, this.canvas.height / this.ratio);
    for (const point of this.town.drawn) {
      if (!point) continue;
      g.fillStyle = "#b5541c";
      g.fillRect(point[0] * scale - 1.5, point[1] * scale - 1.5, 3, 3);
    }
    const { scrollLeft, scrollTop, clientWidth, clientHeight } = this.wrap;
    g.strokeStyle = "#1f2a2e";
    g.lineWidth = 1.5;
    g.strokeRect(scrollLeft * scale, scrollTop * scale, clientWidth * scale, clientHeight * scale);
    this.frame = { x: scrollLeft * scale, y: scrollTop * scale, w: clientWidth * scale, h: clientHeight * scale };
  }
}
