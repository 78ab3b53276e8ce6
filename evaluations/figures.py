"""The report's figures as PNG bytes, drawn with matplotlib's Agg (no display, no network)."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .ranking import ConditionRating


def _pyplot() -> Any:
    """matplotlib's pyplot on Agg, imported when a figure is drawn, not when a process
    starts (half a second of every web and worker process's start otherwise)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _dates() -> Any:
    import matplotlib.dates

    return matplotlib.dates


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    _pyplot().close(figure)
    return buffer.getvalue()


def figure_diffusion(*, news: Mapping[str, Mapping[str, Any]], residents: int) -> bytes:
    """Percent of the residents holding each piece of news over sim time (a step curve)."""
    figure, axes = _pyplot().subplots(figsize=(7, 3.5))
    for label, diffusion in news.items():
        times = sorted(
            datetime.strptime(r["first_heard"], "%Y-%m-%d %H:%M")
            for r in diffusion["residents"].values()
        )
        held = 1 if diffusion.get("source_holds_it") else 0
        percents = [100 * (held + i) / residents for i in range(1, len(times) + 1)]
        if times:
            days = _dates().date2num(times)
            axes.step(days, percents, where="post", label=label)
    axes.set_ylabel("residents who know it (%)")
    axes.set_ylim(0, 100)
    if axes.get_legend_handles_labels()[1]:
        axes.legend(loc="upper left")
        axes.xaxis_date()
        figure.autofmt_xdate()
    else:
        axes.set_xticks([])
        axes.text(0.5, 0.5, "nobody but the source has heard it yet", ha="center", va="center")
    return _png(figure)


def figure_trueskill(*, ratings: Sequence[ConditionRating]) -> bytes:
    """TrueSkill mu per condition with sigma as the error bar."""
    figure, axes = _pyplot().subplots(figsize=(6, 3.5))
    names = [r.condition for r in ratings]
    axes.bar(names, [r.mu for r in ratings], yerr=[r.sigma for r in ratings], capsize=4)
    axes.set_ylabel("TrueSkill mu (error bar: sigma)")
    axes.tick_params(axis="x", labelrotation=20)
    return _png(figure)


def figure_relationships(
    *, residents: Sequence[str], before: Sequence[Sequence[str]], after: Sequence[Sequence[str]]
) -> bytes:
    """The relationship graph at the start and now, side by side, residents on a circle."""
    angles = [2 * math.pi * i / max(len(residents), 1) for i in range(len(residents))]
    at = {name: (math.cos(a), math.sin(a)) for name, a in zip(residents, angles, strict=True)}
    figure, axes = _pyplot().subplots(1, 2, figsize=(11, 5.5))
    for ax, edges, title in ((axes[0], before, "start"), (axes[1], after, "now")):
        for a, b in edges:
            if a in at and b in at:
                ax.plot(*zip(at[a], at[b], strict=True), color="#8a9bb0", linewidth=0.8)
        ax.scatter([x for x, _ in at.values()], [y for _, y in at.values()], s=40, zorder=3)
        for name, (x, y) in at.items():
            side = "left" if x > 0.2 else "right" if x < -0.2 else "center"
            ax.annotate(name.split()[0], (x * 1.1, y * 1.1), ha=side, va="center", fontsize=7)
        ax.set_title(f"{title}: {len(edges)} pairs")
        ax.set_xlim(-1.35, 1.35)
        ax.set_ylim(-1.35, 1.35)
        ax.set_aspect("equal")
        ax.axis("off")
    return _png(figure)
