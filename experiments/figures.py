"""An experiment's figures as PNG bytes (matplotlib's Agg: no display, no network): each
fact's diffusion over sim time per variant with its 95% band, and each measure's mean and
interval per variant."""

from __future__ import annotations

import io
import math
from typing import Any

from .stats import measure_order

COLOURS = ["#1f5fa8", "#c2410c", "#15803d", "#7e22ce", "#b91c1c", "#0f766e"]


def _pyplot() -> Any:
    """matplotlib's pyplot on Agg, imported when a figure is drawn, not when a process
    starts (half a second of every web and worker process's start otherwise)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    _pyplot().close(figure)
    return buffer.getvalue()


def figure_diffusion(*, results: dict[str, Any], fact: str, residents: int, offset: float) -> bytes:
    """Holders of `fact` (the source excluded) over sim hours from the runs' start, per
    variant: the mean over seeds and its 95% band. `offset`: the hours before the start
    (a counterfactual's fork), so branches read from the fork's hour."""
    figure, axes = _pyplot().subplots(figsize=(7.5, 3.8))
    for i, variant in enumerate(results["variants"]):
        points = variant["curves"].get(fact, [])
        if not points:
            continue
        hours = [offset + p["hours"] for p in points]
        colour = COLOURS[i % len(COLOURS)]
        axes.plot(hours, [p["mean"] for p in points], color=colour, label=variant["name"])
        axes.fill_between(
            hours, [p["low"] for p in points], [p["high"] for p in points], color=colour, alpha=0.2
        )
    if offset:
        axes.axvline(offset, color="#555", linestyle=":", linewidth=1)
        axes.annotate("fork", (offset, 0), textcoords="offset points", xytext=(3, 3), fontsize=8)
    axes.set_xlabel("sim hours from the start" if not offset else "sim hours from step 0")
    axes.set_ylabel(f"residents who hold it (of {residents - 1})")
    axes.set_ylim(bottom=0, top=max(1, residents - 1))
    axes.set_title(fact[:90], fontsize=10)
    axes.legend(loc="upper left", fontsize=8)
    return _png(figure)


def figure_measures(*, results: dict[str, Any]) -> bytes:
    """One panel per measure: each variant's mean with its 95% interval."""
    found = results["variants"][0]["measures"] if results["variants"] else {}
    names = sorted(found, key=measure_order)
    columns = 3
    rows = max(1, math.ceil(len(names) / columns))
    figure, grid = _pyplot().subplots(rows, columns, figsize=(11, 2.6 * rows), squeeze=False)
    labels = [v["name"] for v in results["variants"]]
    for k, ax in enumerate(grid.flat):
        if k >= len(names):
            ax.axis("off")
            continue
        name = names[k]
        for i, variant in enumerate(results["variants"]):
            m = variant["measures"][name]
            if m["mean"] is None:
                continue
            ax.errorbar(
                [i],
                [m["mean"]],
                yerr=[[m["mean"] - m["low"]], [m["high"] - m["mean"]]],
                fmt="o",
                color=COLOURS[i % len(COLOURS)],
                capsize=4,
            )
        ax.set_xticks(range(len(labels)), [label[:18] for label in labels], fontsize=7)
        ax.set_xlim(-0.6, len(labels) - 0.4)
        ax.set_title(name[:48], fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
    figure.tight_layout()
    return _png(figure)
