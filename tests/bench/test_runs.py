"""What a latency run checks before it starts, and the embedding bound it reports."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from bench.embeddings import embedding_bound
from bench.runs import CONNECTIONS_BESIDE, connections_check
from memories.embeddings import embed_passages, embed_query


def _allowed() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_connections")
        return int(cursor.fetchone()[0])


@pytest.mark.django_db
def test_a_run_that_may_hold_more_connections_than_allowed_fails_before_it_starts() -> None:
    allowed = _allowed()
    connections_check(allowed - CONNECTIONS_BESIDE)  # just fits: nothing to say
    with pytest.raises(SystemExit, match=f"the database allows {allowed} \\(max_connections\\)"):
        connections_check(allowed - CONNECTIONS_BESIDE + 1)


@pytest.mark.django_db
def test_the_embedding_bound_counts_what_was_embedded_since_and_times_it_here() -> None:
    since = timezone.now()
    embed_passages(texts=[f"Pell Ostrander mends net number {i} at the weir" for i in range(5)])
    embed_query(text="Who mends the nets at the weir?")
    found = embedding_bound(since)
    assert found["texts_embedded"] == {"passage": 5, "query": 1}
    assert found["texts_per_s"] > 0
    assert found["embedding_bound_seconds"] == round(6 / found["texts_per_s"], 1)
