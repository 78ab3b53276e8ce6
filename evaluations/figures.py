"""The report's figures as PNG bytes, drawn with matplotlib's Agg (no display, no network)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import matplotlib
import matplotlib.dates as mdates

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from .ranking import ConditionRating


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


def figure_diffusion(*, news: Mapping[str, Mapping[str, Any]], residents: int) -> bytes:
    """Percent of the residents holding each piece of news over sim time (a step curve)."""
    figure, axes = plt.subplots(figsize=(7, 3.5))
    for label, diffusion in news.items():
        times = sorted(
            datetime.strptime(r["first_heard"], "%Y-%m-%d %H:%M")
            for r in diffusion["residents"].values()
        )
        held = 1 if diffusion.get("source_holds_it") else 0
        percents = [100 * (held + i) / residents for i in range(1, len(times) + 1)]
        if times:
            days = mdates.date2num(times)  # type: ignore[no-untyped-call]
            axes.step(days, percents, where="post", label=label)
    axes.set_ylabel("residents who know it (%)")
    axes.set_ylim(0, 100)
    axes.legend(loc="upper left")
    axes.xaxis_date()
    figure.autofmt_xdate()
    return _png(figure)


def figure_trueskill(*, ratings: Sequence[ConditionRating]) -> bytes:
    """TrueSkill mu per condition with sigma as the error bar."""
    figure, axes = plt.subplots(figsize=(6, 3.5))
    names = [r.condition for r in ratings]
    axes.bar(names, [r.mu for r in ratings], yerr=[r.sigma for r in ratings], capsize=4)
    axes.set_ylabel("TrueSkill mu (error bar: sigma)")
    axes.tick_params(axis="x", labelrotation=20)
    return _png(figure)
