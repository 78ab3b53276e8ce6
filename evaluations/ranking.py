"""Ranking the conditions' answers: TrueSkill per condition and the paper's statistics."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import trueskill

# The paper's conditions, best architecture first; "human" joins when answers are uploaded.
CONDITIONS = ("full", "no_reflection", "no_reflection_no_planning", "no_memory")


@dataclass(frozen=True)
class ConditionRating:
    condition: str
    mu: float
    sigma: float


@dataclass(frozen=True)
class PairwiseTest:
    a: str
    b: str
    u: float
    p: float


@dataclass(frozen=True)
class RankingStatistics:
    kruskal_h: float
    kruskal_p: float
    pairwise: list[PairwiseTest]
    cohens_d_full_vs_no_memory: float | None


def trueskill_rate(*, rankings: Sequence[Sequence[str]]) -> list[ConditionRating]:
    """TrueSkill (mu, sigma) per condition from rankings, each its conditions best first.

    Each ranking is one free-for-all match among the conditions judged for one resident
    and question, as the paper treats an evaluator's ranking; the package's defaults
    (mu 25, sigma 25/3) start every condition.
    """
    env = trueskill.TrueSkill()
    ratings: dict[str, trueskill.Rating] = {}
    for ranking in rankings:
        if len(ranking) < 2:
            continue
        teams = [(ratings.setdefault(c, env.create_rating()),) for c in ranking]
        rated = env.rate(teams, ranks=list(range(len(ranking))))
        for condition, (rating,) in zip(ranking, rated, strict=True):
            ratings[condition] = rating
    return [
        ConditionRating(c, r.mu, r.sigma)
        for c, r in sorted(ratings.items(), key=lambda i: -i[1].mu)
    ]


def rank_scores(*, rankings: Sequence[Sequence[str]]) -> dict[str, list[float]]:
    """Each condition's positions as scores (higher is more believable): n - 1 - rank."""
    scores: dict[str, list[float]] = {}
    for ranking in rankings:
        for position, condition in enumerate(ranking):
            scores.setdefault(condition, []).append(float(len(ranking) - 1 - position))
    return scores


def cohens_d(*, a: Sequence[float], b: Sequence[float]) -> float | None:
    """Cohen's d with the pooled sample standard deviation; None when it is undefined."""
    if len(a) < 2 or len(b) < 2:
        return None
    var_a, var_b = statistics.variance(a), statistics.variance(b)
    pooled = (((len(a) - 1) * var_a + (len(b) - 1) * var_b) / (len(a) + len(b) - 2)) ** 0.5
    if pooled == 0:
        return None
    return (statistics.fmean(a) - statistics.fmean(b)) / pooled


def ranking_statistics(*, scores: Mapping[str, Sequence[float]]) -> RankingStatistics | None:
    """Kruskal-Wallis across conditions, pairwise two-sided Mann-Whitney U, and d(full, no_memory).

    None when fewer than two conditions have scores or all scores are equal (the tests
    are undefined then).
    """
    groups = {c: list(s) for c, s in scores.items() if s}
    values = [v for s in groups.values() for v in s]
    if len(groups) < 2 or len(set(values)) < 2:
        return None
    from scipy import stats  # when tested: most processes never rank (0.7 s to import)

    h, p = stats.kruskal(*groups.values())
    pairwise = []
    for a, b in combinations(groups, 2):
        result = stats.mannwhitneyu(groups[a], groups[b], alternative="two-sided")
        pairwise.append(PairwiseTest(a, b, float(result.statistic), float(result.pvalue)))
    d = None
    if "full" in groups and "no_memory" in groups:
        d = cohens_d(a=groups["full"], b=groups["no_memory"])
    return RankingStatistics(float(h), float(p), pairwise, d)
