"""What the viewer draws, read back from its canvas: a pixel, and a resident's colour."""

from __future__ import annotations

from playwright.sync_api import Page


def pixel(page: Page, x: float, y: float) -> list[int]:
    """The map's RGBA at (x, y) in CSS pixels."""
    script = """([x, y]) => {
      const c = document.getElementById("map");
      const r = window.devicePixelRatio || 1;
      return Array.from(c.getContext("2d").getImageData(x * r, y * r, 1, 1).data);
    }"""
    return list(page.evaluate(script, [x, y]))


def resident_rgb(page: Page, i: int) -> list[int]:
    """The RGB of resident `i`'s own colour, as the page paints it."""
    script = """(i) => {
      const c = document.createElement("canvas");
      c.width = c.height = 1;
      const g = c.getContext("2d");
      g.fillStyle = window.smallvilleViewer.town.residents[i].colour;
      g.fillRect(0, 0, 1, 1);
      return Array.from(g.getImageData(0, 0, 1, 1).data).slice(0, 3);
    }"""
    return list(page.evaluate(script, i))


def near(rgb: list[int], other: list[int], tolerance: int = 24) -> bool:
    """Two colours alike but for antialiasing."""
    return all(abs(a - b) <= tolerance for a, b in zip(rgb, other, strict=True))
