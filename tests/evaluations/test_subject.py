"""An evaluation at a past step measures the simulation as it was then, through a fork made
once; at its own step and not running, the simulation itself."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from evaluations.models import EvaluationStatus, InterviewAnswer
from evaluations.runner import evaluation_run
from evaluations.services import evaluation_create, evaluation_subject_fix
from memories.models import Memory, MemoryKind
from memories.services import MemoryDraft, memories_create
from runtime.engine.inline import simulation_run_inline
from tests.factories import three_residents
from world.models import Event, Simulation

# The Ville bases' first named fact (agents/bases/data/reference/the_ville_measures.json).
PARTY = "Isabella Rodriguez is throwing a Valentine's Day party at Hobbs Cafe"

ISABELLA, KLAUS = "Isabella Rodriguez", "Klaus Mueller"
# The run hands on its ticks on commit: the tests need real transactions.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def told_at_step_6(user: User) -> Simulation:
    """Three residents run six steps from 07:00; at step 6 Klaus hears of the party."""
    simulation = three_residents(user, 31)
    Simulation.objects.filter(pk=simulation.pk).update(budget_calls=5000)
    simulation = simulation_run_inline(simulation=simulation, steps=6)
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(
                agent=KLAUS,
                kind=MemoryKind.THOUGHT,
                description=f"{PARTY} on February 14",
                importance=7,
                source={"from": ISABELLA},
            )
        ],
        step=simulation.step,
    )
    simulation.refresh_from_db()
    return simulation


def _klaus_heard(evaluation_result: dict[str, Any]) -> bool:
    party = evaluation_result["diffusion"]["facts"][0]
    assert party["fact"] == PARTY
    return KLAUS in party["by_interview"]["knows"]


def test_a_past_step_is_measured_on_its_fork_as_it_was(told_at_step_6):
    simulation = told_at_step_6
    log = Event.objects.filter(simulation=simulation).count()
    earlier = evaluation_run(
        evaluation=evaluation_create(simulation=simulation, kinds=["diffusion"], step=3)
    )
    now = evaluation_run(evaluation=evaluation_create(simulation=simulation, kinds=["diffusion"]))

    assert (earlier.status, now.status) == (EvaluationStatus.DONE, EvaluationStatus.DONE)
    fork = earlier.subject
    assert fork is not None
    assert (fork.parent_id, fork.forked_at_step, fork.step) == (simulation.pk, 3, 3)
    assert not Memory.objects.filter(simulation=fork, description__startswith=PARTY).exists()
    assert now.subject_id == simulation.pk  # at its own step and idle: measured in place
    # At step 3 Klaus had not heard yet; at step 6 he has, and says so.
    assert not _klaus_heard(earlier.result) and _klaus_heard(now.result)
    assert earlier.result["sim_time"] == "2023-02-13T07:00:30+00:00"
    # The answers are the fork's residents'; the evaluated simulation's log is untouched.
    answers = InterviewAnswer.objects.filter(evaluation=earlier)
    assert {a.agent.simulation_id for a in answers} == {fork.pk}
    assert Event.objects.filter(simulation=simulation).count() == log


def test_the_subject_is_fixed_once(told_at_step_6):
    simulation = told_at_step_6
    evaluation = evaluation_create(
        simulation=simulation,
        kinds=["interviews"],
        conditions=["full"],
        human_answers={KLAUS: {"1": "I'm Klaus, I study gentrification."}},
        step=2,
    )
    first = evaluation_subject_fix(evaluation=evaluation)
    again = evaluation_subject_fix(evaluation=evaluation)  # a re-run after a killed worker

    assert first.pk == again.pk != simulation.pk
    assert simulation.forks.count() == 1
    # The fork keeps what is left of the budget, and the human answer is its Klaus's.
    used = simulation.model_usage.calls
    assert first.budget_calls == 5000 - used
    human = InterviewAnswer.objects.get(evaluation=evaluation, condition="human")
    assert (human.agent.simulation_id, human.agent.name) == (first.pk, KLAUS)


def test_a_running_simulation_is_measured_on_a_fork(told_at_step_6):
    simulation = told_at_step_6
    Simulation.objects.filter(pk=simulation.pk).update(status="running")
    evaluation = evaluation_create(simulation=simulation, kinds=["relationships"])

    subject = evaluation_subject_fix(evaluation=evaluation)

    assert subject.pk != simulation.pk and subject.step == simulation.step


def test_the_command_measures_a_past_step_asks_a_fact_and_writes_the_report(
    told_at_step_6, tmp_path
):
    report = tmp_path / "report.html"
    out = StringIO()
    call_command(
        "evaluate",
        told_at_step_6.pk,
        "--kind",
        "diffusion",
        "--step",
        "4",
        "--fact",
        "Klaus Mueller is writing a research paper",
        "--report",
        str(report),
        stdout=out,
        stderr=StringIO(),
    )

    result = json.loads(out.getvalue())
    assert result["subject_note"] == f"its fork at step 4 (simulation {result['subject']})"
    (fact,) = result["diffusion"]["facts"]
    assert fact["question"] == "Did you hear that Klaus Mueller is writing a research paper?"
    html = report.read_text()
    assert "Measured at step 4" in html and "Klaus Mueller is writing a research paper" in html
