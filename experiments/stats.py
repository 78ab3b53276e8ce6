"""Intervals over seeds: the mean of each measure with a 95% bootstrap interval, and each
variant's difference from the first (the control) with its interval and effect size.

The bootstrap resamples the seeds' values with replacement (B resamples, percentile
interval); its generator is seeded, so the same runs give the same intervals. When two
variants ran the same seeds (always, in an experiment) their difference is paired: the
seed's draws are shared, so the per-seed differences are resampled. Effect size: Hedges' g
(Cohen's d with the small-sample correction) over the two variants' values; None when
both spread nothing (every seed gave the same value)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

RESAMPLES = 10_000
LEVEL = 0.95
GENERATOR_SEED = 20230414  # fixed: the same runs give the same intervals


def _interval(samples: np.ndarray) -> tuple[float, float]:
    low, high = np.quantile(samples, [(1 - LEVEL) / 2, 1 - (1 - LEVEL) / 2])
    return float(low), float(high)


def bootstrap_mean(values: Sequence[float]) -> dict[str, Any]:
    """The mean and its 95% bootstrap interval over the seeds' values."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return {"n": 0, "mean": None, "low": None, "high": None}
    rng = np.random.default_rng(GENERATOR_SEED)
    means = rng.choice(data, size=(RESAMPLES, data.size), replace=True).mean(axis=1)
    low, high = _interval(means)
    return {"n": int(data.size), "mean": float(data.mean()), "low": low, "high": high}


def hedges_g(a: Sequence[float], b: Sequence[float]) -> float | None:
    """(mean b - mean a) over the pooled standard deviation, small-sample corrected."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n1, n2 = x.size, y.size
    if n1 < 2 or n2 < 2:
        return None
    pooled = ((n1 - 1) * x.var(ddof=1) + (n2 - 1) * y.var(ddof=1)) / (n1 + n2 - 2)
    if pooled == 0:
        return None
    correction = 1 - 3 / (4 * (n1 + n2) - 9)
    return float((y.mean() - x.mean()) / math.sqrt(pooled) * correction)


def difference(control: dict[int, float], other: dict[int, float]) -> dict[str, Any]:
    """other - control over the seeds both have (paired), with its 95% interval."""
    seeds = sorted(set(control) & set(other))
    diffs = [other[s] - control[s] for s in seeds]
    summary = bootstrap_mean(diffs)
    excludes_zero = summary["n"] > 0 and (summary["low"] > 0 or summary["high"] < 0)
    return {
        **summary,
        "paired_seeds": seeds,
        "excludes_zero": bool(excludes_zero),
        "hedges_g": hedges_g([control[s] for s in seeds], [other[s] for s in seeds]),
    }


def band(curves: Sequence[Sequence[Sequence[float]]]) -> list[dict[str, Any]]:
    """Per time point of the seeds' curves (the same times), the mean and its interval."""
    if not curves:
        return []
    shortest = min(len(c) for c in curves)
    points = []
    for i in range(shortest):
        summary = bootstrap_mean([c[i][1] for c in curves])
        points.append({"hours": curves[0][i][0], **summary})
    return points


_FIRST = ("diffusion: ", "came: ", "committed: ")


def measure_order(name: str) -> tuple[int, str]:
    """The facts' diffusion first, then the events' attendance, then the rest by name."""
    for rank, prefix in enumerate(_FIRST):
        if name.startswith(prefix):
            return rank, name
    return len(_FIRST), name


def results_compute(*, variants: Sequence[str], runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """From the measured runs ({"variant", "seed", "measures"}; failed ones absent): per
    variant each measure's mean and interval and each fact's band over time; per variant
    after the first, its differences from the first."""
    by_variant: dict[int, dict[str, dict[int, float]]] = {i: {} for i in range(len(variants))}
    curves: dict[int, dict[str, list[Any]]] = {i: {} for i in range(len(variants))}
    for run in runs:
        for name, value in run["measures"]["values"].items():
            by_variant[run["variant"]].setdefault(name, {})[run["seed"]] = value
        for fact, curve in run["measures"]["curves"].items():
            curves[run["variant"]].setdefault(fact, []).append(curve)
    names = sorted({n for measures in by_variant.values() for n in measures}, key=measure_order)
    out: dict[str, Any] = {"level": LEVEL, "resamples": RESAMPLES, "variants": []}
    for i, label in enumerate(variants):
        out["variants"].append(
            {
                "name": label,
                "runs": len({s for m in by_variant[i].values() for s in m}),
                "measures": {
                    n: {
                        **bootstrap_mean(list(by_variant[i].get(n, {}).values())),
                        "values": by_variant[i].get(n, {}),
                    }
                    for n in names
                },
                "curves": {fact: band(cs) for fact, cs in curves[i].items()},
            }
        )
    out["differences"] = [
        {
            "variant": label,
            "against": variants[0],
            "measures": {
                n: difference(by_variant[0].get(n, {}), by_variant[i].get(n, {})) for n in names
            },
        }
        for i, label in enumerate(variants)
        if i > 0
    ]
    return out
