"""A spread bench run asks the database for the connections its threads may hold."""

from __future__ import annotations

import pytest
from django.db import connection

from bench.runs import CONNECTIONS_BESIDE, connections_check


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
