"""Settlement of the ledger: a call whose process died in flight (a worker killed) would
stay counted and unfinished for ever. The watchdog settles it once its process's lease
lapses (or it is older than the longest a call can take: its process lives but the
completion was never written), and takes its count back, so the ledger bills only calls
that ended. Its statement locks usage rows before ledger rows, as llm/services.py does.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection

from world.leases import holders_alive, process_lease

from .models import ModelCall, ModelUsage

ABANDONED = "abandoned: its worker stopped before the call ended; not billed"


def model_call_longest_seconds() -> float:
    """The longest a call can be in flight with the current settings: every attempt it may
    make (its retries, its re-asks and two steps down the response format) timing out,
    after the longest backoff before each retry."""
    attempts = settings.SMALLVILLE_LLM_MAX_RETRIES + settings.SMALLVILLE_LLM_MAX_REASKS + 3
    backoff = settings.SMALLVILLE_LLM_BACKOFF_MAX * settings.SMALLVILLE_LLM_MAX_RETRIES
    return float(settings.SMALLVILLE_LLM_TIMEOUT * attempts + backoff)


# Settlement is one statement: finish the calls in flight whose process is gone (its lease
# lapsed) or that outlived the longest a call can take, take their count back from their
# simulations' usage (their tokens were never added), and let identical calls ask again.
# Usage rows are locked first, in order, as in the completion.
_SETTLE_SQL = f"""
WITH usage_rows AS MATERIALIZED (
    SELECT simulation_id FROM {ModelUsage._meta.db_table} WHERE simulation_id IN (
        SELECT simulation_id FROM {ModelCall._meta.db_table} WHERE finished_at IS NULL
    )
    ORDER BY simulation_id FOR UPDATE
), abandoned AS (
    UPDATE {ModelCall._meta.db_table} SET
        error = %(error)s, finished_at = now(), shared = false,
        attempt_log = jsonb_build_array(jsonb_build_object('outcome', 'abandoned'))
    WHERE finished_at IS NULL AND (
        created_at < now() - %(older_than)s * interval '1 second'
        OR holder = ANY(%(lapsed)s) OR id = ANY(%(ids)s)
    ) AND (SELECT count(*) FROM usage_rows) >= 0
    RETURNING id, simulation_id
), taken AS (
    UPDATE {ModelUsage._meta.db_table} AS u SET calls = u.calls - a.n
    FROM (
        SELECT simulation_id, count(*) AS n FROM abandoned
        WHERE simulation_id IS NOT NULL GROUP BY simulation_id
    ) AS a
    WHERE u.simulation_id = a.simulation_id
)
SELECT id FROM abandoned ORDER BY id
"""


def model_calls_settle_abandoned(
    *, older_than: float | None = None, ids: list[int] | None = None
) -> list[int]:
    """Finish the calls in flight whose process died (the lease of their `holder` lapsed,
    `world.leases`), those still in flight `older_than` seconds after their admission
    (default: the longest a call can take: a holder alive but stuck, or a row of a release
    without holders), and those of `ids` (a waiter found their holder dead). They are
    marked `ABANDONED` and not billed (their count is taken back from the simulation's
    usage). A call that does end after all is billed by its completion. Returns their ids."""
    bound = model_call_longest_seconds() if older_than is None else older_than
    holders = list(
        ModelCall.objects.filter(finished_at__isnull=True)
        .exclude(holder="")
        .values_list("holder", flat=True)
        .distinct()
    )
    alive = holders_alive([process_lease(holder) for holder in holders])
    lapsed = [holder for holder in holders if process_lease(holder) not in alive]
    with connection.cursor() as cursor:
        cursor.execute(
            _SETTLE_SQL,
            {"error": ABANDONED, "older_than": bound, "lapsed": lapsed, "ids": ids or []},
        )
        return [row[0] for row in cursor.fetchall()]
