"""The test database between tests: the shipped rows every test finds, and rows a
module's fixture commits for its tests.

A transactional test's flush at its end deletes every row, the shipped towns and bases
too. The next test that uses the database gets them again first (`shipped_rows_restore`,
committed, before a test's transaction opens), so no test depends on running before the
transactional ones: a serial run puts those last, the workers of a parallel run take
tests in any order."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from django.apps import apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection, models
from pytest_django.plugin import blocking_manager_key

from agents.bases.services import bases_shipped_ensure
from memories.models import EmbeddingCache
from world.towns import shipped_town_names, town_get_or_import

_FLUSHED = pytest.StashKey[bool]()
T = TypeVar("T")


def shipped_rows_ensure() -> None:
    """The shipped towns and bases as rows, as `migrate` leaves them (agents/apps.py)."""
    town_get_or_import()
    bases_shipped_ensure()
    for name in shipped_town_names():
        town_get_or_import(name)


# A copy of each table's shipped rows, taken once the test database has them: a flush's
# rows are put back from it in one statement a table (a few milliseconds) instead of
# importing the Ville again (half a second of CPU, before each test run in a transaction
# after a transactional one). The rows keep their ids, so in-process caches keyed by a
# town's id stay true. The copies are no Django tables, so no flush takes them.
_COPY = "shipped_copy__"


def shipped_rows_keep() -> None:
    """Make the shipped rows (`shipped_rows_ensure`) in a flushed database and copy each
    table they went into."""
    rows_flush()
    before = _row_counts()
    shipped_rows_ensure()
    after = _row_counts()
    tables = _in_reference_order([model for model, rows in after.items() if rows > before[model]])
    with connection.cursor() as cursor:
        for table in tables:
            copy = connection.ops.quote_name(_COPY + table)
            cursor.execute(f"DROP TABLE IF EXISTS {copy}")
            cursor.execute(f"CREATE TABLE {copy} AS TABLE {connection.ops.quote_name(table)}")
    _SHIPPED_TABLES[:] = tables


_SHIPPED_TABLES: list[str] = []


def shipped_rows_put_back() -> None:
    """The shipped rows again, from their copies, after a flush took them."""
    if not _SHIPPED_TABLES:  # pragma: no cover - the session's setup keeps them first
        shipped_rows_ensure()
        return
    with connection.cursor() as cursor:
        for table in _SHIPPED_TABLES:
            name, copy = (connection.ops.quote_name(t) for t in (table, _COPY + table))
            cursor.execute(f"INSERT INTO {name} SELECT * FROM {copy}")


def _row_counts() -> dict[type[models.Model], int]:
    return {
        model: model._default_manager.count() for model in apps.get_models() if model._meta.managed
    }


def _in_reference_order(changed: list[type[models.Model]]) -> list[str]:
    """The tables of `changed`, each after those its foreign keys refer to."""
    ordered: list[type[models.Model]] = []

    def visit(model: type[models.Model]) -> None:
        if model in ordered:
            return
        for field in model._meta.concrete_fields:
            target = field.related_model if field.is_relation else None
            if target in changed and target is not model:
                visit(target)
        ordered.append(model)

    for model in changed:
        visit(model)
    return [model._meta.db_table for model in ordered]


def commits_unsynced() -> None:
    """The test database's commits do not wait for the disk (`synchronous_commit` off for
    every connection to it, this process's and those of the workers and servers a test
    starts): 3 ms a commit on this machine, 0.1 ms without, for engines that commit
    several times a step. What a commit makes visible to other connections, and when, is
    unchanged; only a crash of the server could lose the last ones (the chaos tests crash
    a Postgres of their own)."""
    name = connection.settings_dict["NAME"]
    with connection.cursor() as cursor:
        cursor.execute(
            f"ALTER DATABASE {connection.ops.quote_name(name)} SET synchronous_commit = off"
        )
        cursor.execute("SET synchronous_commit = off")


def database_use(item: pytest.Item) -> str:
    """How a test uses the test database, as pytest-django orders tests: "transactional"
    (its commits flushed at its end), "transaction" (rolled back at its end) or ""."""
    from django.test import TestCase, TransactionTestCase

    cls = getattr(item, "cls", None)
    if cls is not None and issubclass(cls, TransactionTestCase):
        return "transaction" if issubclass(cls, TestCase) else "transactional"
    fixtures = set(getattr(item, "fixturenames", ()))
    marker = item.get_closest_marker("django_db")
    if marker is not None and (
        marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")
    ):
        return "transactional"
    if fixtures & {"transactional_db", "live_server", "django_db_reset_sequences"}:
        return "transactional"
    if marker is not None or "db" in fixtures:
        return "transaction"
    return ""


def shipped_rows_restore(item: pytest.Item) -> None:
    """Before each test that uses the database (pytest_runtest_setup): the shipped rows
    again if a flush took them, as `migrate` left them."""
    use = database_use(item)
    if use and item.config.stash.get(_FLUSHED, False):
        with item.config.stash[blocking_manager_key].unblock():
            shipped_rows_put_back()
        item.config.stash[_FLUSHED] = False
    if use == "transactional":
        item.config.stash[_FLUSHED] = True  # its rows are flushed at its end


# Tables a flush keeps. The embedding cache is content-addressed: a row says which vector
# a model gives a text ((model, kind, text hash) -> vector), true in every test, and no
# other row refers to it. Kept, a Celery worker or server a later test starts finds the
# vectors of the Ville's and the bases' texts instead of running the embedder on them
# again (the test process keeps its own in memory, memories.embeddings._memo). Content
# types and permissions are the models' own, the same in every test: kept, a flush's
# `post_migrate` finds them instead of writing 200 rows again, and their ids hold.
FLUSH_KEEPS = frozenset(
    {EmbeddingCache._meta.db_table, ContentType._meta.db_table, Permission._meta.db_table}
)


def flush_keeps_content_addressed_rows() -> None:
    """Every flush (a transactional test's, `rows_flush`) from now on in this process
    leaves FLUSH_KEEPS' tables as they are."""
    from django.core.management.commands import flush

    def sql_flush(
        style: Any, connection: Any, reset_sequences: bool = True, allow_cascade: bool = False
    ) -> list[str]:
        tables = connection.introspection.django_table_names(
            only_existing=True, include_views=False
        )
        return list(
            connection.ops.sql_flush(
                style,
                [table for table in tables if table not in FLUSH_KEEPS],
                reset_sequences=reset_sequences,
                allow_cascade=allow_cascade,
            )
        )

    flush.sql_flush = sql_flush  # type: ignore[attr-defined]


def rows_flush() -> None:
    """Every row deleted, as a transactional test's flush does: the sequences go on, so no
    later row takes an id that an in-process cache still holds for another one (Django's
    `flush` command alone starts them again; docs/architecture.md)."""
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)


def module_rows(request: pytest.FixtureRequest, make: Callable[[], T]) -> Iterator[T]:
    """For a module's fixture (`yield from module_rows(request, make)`): what `make`
    returns, its rows committed for the module's tests, which see them as rows made
    before their transaction, and flushed after them, as a transactional test's are."""
    blocker = request.config.stash[blocking_manager_key]
    request.getfixturevalue("django_db_setup")
    with blocker.unblock():
        made = make()
    try:
        yield made
    finally:
        with blocker.unblock():
            rows_flush()
        request.config.stash[_FLUSHED] = True
