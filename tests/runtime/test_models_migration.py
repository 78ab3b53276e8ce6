"""The runtime's tables moved from the agents app keep every row: staged decisions, a
spread group's decisions and staged commits written before the move are read after it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from runtime.models import Decision, GroupDecision, StagedCommit
from tests.factories import simulation_of

MOVED_AFTER = ("agents", "0012_scenario_recipients")
BEFORE: list[tuple[str, str | None]] = [MOVED_AFTER, ("runtime", None)]


@pytest.mark.django_db(transaction=True)
def test_the_move_keeps_every_row(user: User) -> None:
    simulation = simulation_of(user)
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(MOVED_AFTER).apps
    drafts = [{"kind": "agent.moved", "agent": "Pell Orrin", "payload": {"tile": [3, 4]}}]
    old.get_model("agents", "Decision").objects.create(
        simulation_id=simulation.pk, step=7, agent="Pell Orrin", events=drafts
    )
    old.get_model("agents", "GroupDecision").objects.create(
        simulation_id=simulation.pk, token="tok-1", step=7, decisions=[{"agent": "Pell Orrin"}]
    )
    old.get_model("agents", "StagedCommit").objects.create(
        simulation_id=simulation.pk, step=8, agents=["Pell Orrin", "Sabeth Ruel"], events=drafts
    )

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    decision = Decision.objects.get(simulation=simulation, step=7, agent="Pell Orrin")
    assert decision.events == drafts
    group = GroupDecision.objects.get(token="tok-1")
    assert (group.simulation_id, group.step) == (simulation.pk, 7)
    staged = StagedCommit.objects.get(simulation=simulation)
    assert (staged.step, staged.agents) == (8, ["Pell Orrin", "Sabeth Ruel"])
    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
    assert {"runtime_decision", "runtime_groupdecision", "runtime_stagedcommit"} <= set(tables)
    assert not {"agents_decision", "agents_groupdecision", "agents_stagedcommit"} & set(tables)
