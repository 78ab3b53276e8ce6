"""Retrieval scoring without Postgres: weights, presets, the query vector, and the ranking.

The paper's formula lives in SQL (`memories.retrieval.EXACT_SQL`). Past its first CTE,
which computes the raw terms with Postgres functions (pgvector's cosine distance,
timestamps), the statement is plain SQL: the min-max bounds, the normalisation, the
weighted sum, the order and the limit. Those are run here as written, on SQLite in memory
(Python's standard library; no Django connection, so no database of the project), over
raw terms given by hand. tests/memories/test_retrieval.py checks the whole statement,
raw terms included, against a NumPy oracle on Postgres.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pytest

from memories import retrieval
from memories.models import MemoryKind
from memories.retrieval import (
    PRESETS,
    Mode,
    Scored,
    Weights,
    memories_retrieve,
    vector_literal,
    weights_for,
)

# Raw terms: (number, recency, importance, relevance). Recency is decay ** hours since
# the last access, here with decay 0.5 and 0, 1 and 2 hours.
THREE = [(1, 1.0, 2, 0.1), (2, 0.5, 8, 0.5), (3, 0.25, 5, 0.9)]


def rank(terms: Sequence[tuple[int, float, float, float]], weights: Weights, k: int = 10):
    """EXACT_SQL's ranking over the given raw terms, as `Scored` rows, best first."""
    tail = retrieval.EXACT_SQL[retrieval.EXACT_SQL.index("b AS (") :]
    sql = re.sub(r"%\((\w+)\)s", r":\1", f"WITH s AS (SELECT * FROM terms),\n{tail}")
    db = sqlite3.connect(":memory:")
    try:
        # REAL columns, as the statement casts importance to float8 before dividing.
        db.execute("CREATE TABLE terms (id INTEGER, number INTEGER, rec REAL, imp REAL, rel REAL)")
        db.executemany(
            "INSERT INTO terms VALUES (?, ?, ?, ?, ?)",
            [(100 + n, n, rec, imp, rel) for n, rec, imp, rel in terms],
        )
        params: dict[str, Any] = {
            "w_rec": weights.recency,
            "w_imp": weights.importance,
            "w_rel": weights.relevance,
            "k": k,
        }
        return [Scored(*row) for row in db.execute(sql, params).fetchall()]
    finally:
        db.close()


# --- the ranking ---------------------------------------------------------------------


def test_three_memories_with_the_papers_equal_weights() -> None:
    # Normalised: recency 1, 1/3, 0; importance 0, 1, 1/2; relevance 0, 1/2, 1.
    got = rank(THREE, PRESETS["paper"])
    assert [s.number for s in got] == [2, 3, 1]
    assert [s.score for s in got] == pytest.approx([1 / 3 + 1 + 0.5, 0 + 0.5 + 1, 1 + 0 + 0])
    assert [s.memory_id for s in got] == [102, 103, 101]


def test_the_breakdown_holds_the_raw_terms_beside_the_weighted_score() -> None:
    best = rank(THREE, PRESETS["paper"])[0]
    assert (best.recency, best.importance, best.relevance) == (0.5, 8.0, 0.5)
    assert best.score == pytest.approx(11 / 6)


def test_the_reference_weights_put_relevance_first() -> None:
    # recency 0.5, importance 2, relevance 3 over the same normalised terms.
    got = rank(THREE, PRESETS["reference"])
    assert [s.number for s in got] == [3, 2, 1]
    assert [s.score for s in got] == pytest.approx([0 + 1 + 3, 0.5 / 3 + 2 + 1.5, 0.5])


def test_a_zero_weight_removes_its_term() -> None:
    only_recency = rank(THREE, Weights(recency=1, importance=0, relevance=0))
    assert [s.number for s in only_recency] == [1, 2, 3]  # most recently accessed first
    assert [s.score for s in only_recency] == pytest.approx([1, 1 / 3, 0])


def test_a_term_equal_for_all_memories_normalises_to_one_half() -> None:
    same_importance = [(1, 1.0, 5, 0.1), (2, 0.5, 5, 0.5), (3, 0.25, 5, 0.9)]
    got = rank(same_importance, Weights(recency=0, importance=2, relevance=0))
    assert [s.score for s in got] == pytest.approx([1.0, 1.0, 1.0])


def test_a_single_memory_scores_one_half_per_unit_of_weight() -> None:
    (only,) = rank([(1, 0.7, 3, 0.2)], PRESETS["reference"])
    assert only.score == pytest.approx(0.5 * (0.5 + 2 + 3))


def test_equal_scores_rank_the_newer_memory_first() -> None:
    twins = [(1, 1.0, 5, 0.5), (2, 1.0, 5, 0.5), (3, 0.5, 1, 0.1)]
    assert [s.number for s in rank(twins, PRESETS["paper"])] == [2, 1, 3]


def test_only_the_top_k_come_back() -> None:
    got = rank(THREE, PRESETS["paper"], k=2)
    assert [s.number for s in got] == [2, 3]


def test_normalisation_ignores_the_scale_of_a_term() -> None:
    # Importance 20..80 ranks as 2..8 did: only positions between min and max count.
    scaled = [(n, rec, imp * 10, rel) for n, rec, imp, rel in THREE]
    assert [s.score for s in rank(scaled, PRESETS["paper"])] == pytest.approx(
        [s.score for s in rank(THREE, PRESETS["paper"])]
    )


# --- weights -------------------------------------------------------------------------


def test_the_paper_weighs_the_three_terms_equally_and_is_the_default() -> None:
    assert Weights() == PRESETS["paper"] == Weights(1.0, 1.0, 1.0)
    assert weights_for({}) == PRESETS["paper"]
    assert weights_for({"other": "setting"}) == PRESETS["paper"]


def test_the_reference_preset_is_the_reference_codes_weights() -> None:
    reference = weights_for({"retrieval_weights": "reference"})
    assert (reference.recency, reference.importance, reference.relevance) == (0.5, 2.0, 3.0)


def test_custom_weights_are_read_as_floats_and_missing_ones_default_to_one() -> None:
    weights = weights_for({"retrieval_weights": {"relevance": "2.5", "recency": 0}})
    assert weights == Weights(recency=0.0, importance=1.0, relevance=2.5)
    assert isinstance(weights.recency, float)


def test_an_unknown_preset_names_the_known_ones() -> None:
    with pytest.raises(
        ValueError, match=r"unknown retrieval preset 'papr'.*\['paper', 'reference'\]"
    ):
        weights_for({"retrieval_weights": "papr"})


def test_an_unknown_weight_name_is_refused() -> None:
    with pytest.raises(TypeError):
        weights_for({"retrieval_weights": {"novelty": 1}})


@pytest.mark.parametrize("bad", [-1.0, -1e-9, math.inf, -math.inf, math.nan])
def test_a_weight_must_be_finite_and_not_negative(bad: float) -> None:
    with pytest.raises(ValueError, match="the importance weight must be a finite number >= 0"):
        Weights(importance=bad)
    with pytest.raises(ValueError, match="the relevance weight"):
        weights_for({"retrieval_weights": {"relevance": bad}})


def test_a_subnormal_weight_is_zero() -> None:
    # Postgres refuses subnormal doubles as parameters; such a weight is zero anyway.
    assert Weights(recency=1e-310).recency == 0.0
    assert Weights(recency=1e-300).recency == 1e-300


# --- the query vector and the modes --------------------------------------------------


def test_the_query_vector_is_a_pgvector_literal_of_float32_values() -> None:
    vector = np.array([1, 0.5, -0.25, 1 / 3], dtype=np.float64)
    assert vector_literal(vector) == "[1,0.5,-0.25,0.33333334]"  # float32's 1/3, 8 digits
    assert vector_literal(np.array([1e-12, 123456789.0])) == "[1e-12,1.2345679e+08]"


def test_scale_mode_refuses_a_kind_filter_before_any_query() -> None:
    with pytest.raises(ValueError, match="scale mode does not filter by kind"):
        memories_retrieve(
            agent_id=1,
            query_embedding=np.ones(4),
            now=datetime(2023, 2, 13, 12, 0),
            mode=Mode.SCALE,
            exclude_kinds=[MemoryKind.REFLECTION],
        )


@pytest.mark.parametrize("decay", [0.0, -0.5, 1.5])
def test_scale_modes_bounded_search_needs_a_decay_in_0_1(decay: float) -> None:
    # Its recency cutoff divides by ln(decay).
    with pytest.raises(ValueError, match="scale mode needs 0 < decay <= 1"):
        retrieval._bounded_search(None, {"n_relevant": 40}, decay=decay, ef_search=40)
