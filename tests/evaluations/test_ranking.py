"""TrueSkill and the paper's statistics against values computed by hand."""

from __future__ import annotations

import math

import pytest

from evaluations.ranking import cohens_d, rank_scores, ranking_statistics, trueskill_rate


def test_one_win_moves_both_ratings_by_the_trueskill_update():
    # Two new ratings (mu 25, sigma 25/3, beta 25/6, tau 25/300, draw 10%), one win:
    # c^2 = 2 beta^2 + 2 (sigma^2 + tau^2); t = (mu_w - mu_l)/c = 0; eps = draw margin / c;
    # v = pdf(-eps) / cdf(-eps); mu_w = 25 + (sigma^2 + tau^2)/c * v.
    sigma2 = (25 / 3) ** 2 + (25 / 300) ** 2
    c = math.sqrt(2 * (25 / 6) ** 2 + 2 * sigma2)
    from scipy.stats import norm

    margin = norm.ppf((0.1 + 1) / 2) * math.sqrt(2) * 25 / 6
    eps = margin / c
    v = norm.pdf(-eps) / norm.cdf(-eps)
    w = v * (v - eps)
    mu_win = 25 + sigma2 / c * v
    sigma_after = math.sqrt(sigma2 * (1 - sigma2 / c**2 * w))

    ratings = {r.condition: r for r in trueskill_rate(rankings=[["full", "no_memory"]])}

    assert ratings["full"].mu == pytest.approx(mu_win, abs=1e-6)
    assert ratings["no_memory"].mu == pytest.approx(50 - mu_win, abs=1e-6)
    assert ratings["full"].sigma == pytest.approx(sigma_after, abs=1e-6)
    assert round(ratings["full"].mu, 3) == 29.396  # the package's documented 1 vs 1
    assert round(ratings["full"].sigma, 3) == 7.171


def test_conditions_ranked_consistently_order_by_mu():
    rankings = [["full", "no_reflection", "no_reflection_no_planning", "no_memory"]] * 5
    order = [r.condition for r in trueskill_rate(rankings=rankings)]
    assert order == ["full", "no_reflection", "no_reflection_no_planning", "no_memory"]


def test_rank_scores_count_from_the_bottom():
    assert rank_scores(rankings=[["a", "b", "c"], ["b", "a", "c"]]) == {
        "a": [2.0, 1.0],
        "b": [1.0, 2.0],
        "c": [0.0, 0.0],
    }


def test_kruskal_wallis_mann_whitney_and_cohens_d_by_hand():
    # Ranks 1..6 split 3/3: R = 6 and 15; H = 12/(6*7) * (36/3 + 225/3) - 3*7 = 27/7.
    # U for the first group = R - n(n+1)/2 = 0; exact two-sided p = 2 * 1/C(6,3) = 0.1.
    # d = (2 - 5) / pooled sd 1 = -3.
    result = ranking_statistics(scores={"full": [4.0, 5.0, 6.0], "no_memory": [1.0, 2.0, 3.0]})
    assert result is not None
    assert result.kruskal_h == pytest.approx(27 / 7)
    [pair] = result.pairwise
    assert (pair.a, pair.b) == ("full", "no_memory")
    assert pair.u == pytest.approx(9.0)  # U for "full": 15 - 6
    assert pair.p == pytest.approx(0.1)
    assert result.cohens_d_full_vs_no_memory == pytest.approx(3.0)


def test_cohens_d_is_undefined_without_spread_or_samples():
    assert cohens_d(a=[1.0], b=[2.0, 3.0]) is None
    assert cohens_d(a=[1.0, 1.0], b=[1.0, 1.0]) is None
    assert ranking_statistics(scores={"full": [1.0, 1.0], "no_memory": [1.0, 1.0]}) is None
