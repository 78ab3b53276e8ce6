"""The intervals a researcher reads: the mean and its 95% bootstrap interval over seeds,
the paired difference between variants and its effect size."""

from __future__ import annotations

import pytest

from experiments.stats import bootstrap_mean, difference, hedges_g, results_compute


def test_the_mean_lies_in_its_interval_and_the_interval_repeats() -> None:
    values = [3.0, 7.0, 4.0, 9.0, 5.0]
    first = bootstrap_mean(values)
    assert first["mean"] == pytest.approx(5.6)
    assert min(values) <= first["low"] < first["mean"] < first["high"] <= max(values)
    assert bootstrap_mean(values) == first  # the same runs give the same interval


def test_one_value_or_the_same_value_has_no_spread() -> None:
    assert bootstrap_mean([4.0]) == {"n": 1, "mean": 4.0, "low": 4.0, "high": 4.0}
    same = bootstrap_mean([2.0, 2.0, 2.0])
    assert same["low"] == same["high"] == 2.0
    assert bootstrap_mean([])["mean"] is None


def test_a_shift_on_every_seed_is_a_difference_that_excludes_zero() -> None:
    control = {1: 10.0, 2: 14.0, 3: 9.0, 4: 12.0}
    fewer = {seed: value - 6 + (seed % 2) for seed, value in control.items()}
    diff = difference(control, fewer)
    assert diff["paired_seeds"] == [1, 2, 3, 4]
    assert diff["high"] < 0 and diff["excludes_zero"]
    assert diff["mean"] == pytest.approx(-5.5)
    assert diff["hedges_g"] < 0


def test_noise_around_no_change_does_not_exclude_zero() -> None:
    control = {1: 10.0, 2: 14.0, 3: 9.0, 4: 12.0}
    other = {1: 11.0, 2: 13.0, 3: 10.0, 4: 11.0}
    diff = difference(control, other)
    assert diff["low"] <= 0 <= diff["high"] and not diff["excludes_zero"]


def test_hedges_g_is_the_standardised_difference() -> None:
    assert hedges_g([1, 2, 3], [4, 5, 6]) == pytest.approx(3 * (1 - 3 / 15))
    assert hedges_g([1, 1], [1, 1]) is None
    assert hedges_g([1], [2, 3]) is None


def test_results_per_variant_and_differences_from_the_first() -> None:
    def run(variant: int, seed: int, holders: float) -> dict[str, object]:
        curve = [[0.0, 0], [1.0, holders / 2], [2.0, holders]]
        return {
            "variant": variant,
            "seed": seed,
            "measures": {"values": {"diffusion: x": holders}, "curves": {"x": curve}},
        }

    runs = [run(0, s, 8 + s) for s in (1, 2, 3)] + [run(1, s, 2 + s) for s in (1, 2, 3)]
    results = results_compute(variants=["told", "not told"], runs=runs)
    told, untold = results["variants"]
    assert told["measures"]["diffusion: x"]["mean"] == 10 and told["runs"] == 3
    assert untold["measures"]["diffusion: x"]["mean"] == 4
    assert [p["hours"] for p in told["curves"]["x"]] == [0.0, 1.0, 2.0]
    assert told["curves"]["x"][2]["mean"] == 10
    (diff,) = results["differences"]
    assert diff["variant"] == "not told" and diff["against"] == "told"
    assert diff["measures"]["diffusion: x"]["mean"] == -6
    assert diff["measures"]["diffusion: x"]["excludes_zero"]
