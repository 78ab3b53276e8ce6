"""Running an evaluation: the command and the service finish it once, side by side."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from agents.services import simulation_create_from_base
from evaluations.models import Evaluation, EvaluationStatus
from evaluations.runner import evaluation_run
from evaluations.services import evaluation_create
from world.models import Simulation

N3 = "base_the_ville_isabella_maria_klaus"


def _simulation(user: User, seed: int) -> Simulation:
    return simulation_create_from_base(
        owner=user,
        base=N3,
        seed=seed,
        start_time=datetime(2023, 2, 13, 7, tzinfo=UTC),
        config={"cognition": "paper"},
    )


def test_the_command_compares_simulations_and_reports_json(user):
    a, b = _simulation(user, 8), _simulation(user, 9)
    out, err = StringIO(), StringIO()
    call_command(
        "evaluate", a.pk, "--kind", "relationships", "--compare", b.pk, stdout=out, stderr=err
    )

    result = json.loads(out.getvalue())
    assert set(result["simulations"]) == {str(a.pk), str(b.pk)}
    assert result["simulations"][str(a.pk)]["network_density"]["start"]["pairs"] == 3
    # 3 x 2 "Do you know <name>?" at the start and now, then one measure per simulation.
    assert "14/14" in err.getvalue()
    evaluation = Evaluation.objects.get(simulation=a)
    assert (evaluation.status, evaluation.done, evaluation.total) == (EvaluationStatus.DONE, 14, 14)
    assert result["relationships"]["now"]["pairs"] == 3  # the three seeds name one another


def test_a_done_evaluation_is_not_run_again(user):
    simulation = _simulation(user, 10)
    evaluation = evaluation_run(
        evaluation=evaluation_create(simulation=simulation, kinds=["diffusion"])
    )
    finished = evaluation.finished_at
    again = evaluation_run(evaluation=evaluation)
    assert again.finished_at == finished
    assert set(again.result["simulations"][str(simulation.pk)]) == {"party_news", "candidacy_news"}


def test_the_command_refuses_a_step_beyond_the_simulation(user):
    simulation = _simulation(user, 11)
    with pytest.raises(CommandError, match="beyond"):
        call_command("evaluate", simulation.pk, "--step", "999")
    assert not Evaluation.objects.exists()


def test_the_command_takes_conditions_and_a_file_of_human_answers(user, tmp_path):
    simulation = _simulation(user, 12)
    answers = tmp_path / "human.json"
    answers.write_text(json.dumps({"Maria Lopez": {"3": "I love physics and gaming."}}))
    out = StringIO()
    call_command(
        "evaluate",
        simulation.pk,
        "--kind",
        "interviews",
        "--condition",
        "full",
        "--human-answers",
        str(answers),
        stdout=out,
        stderr=StringIO(),
    )

    interviews = json.loads(out.getvalue())["interviews"]
    # 75 answers under `full`; only Maria's question 3 has a second answer to rank.
    assert (interviews["answers"], interviews["judged_questions"]) == (76, 1)
    assert {r["condition"] for r in interviews["trueskill"]} == {"full", "human"}
    answers.write_text("[1, 2")
    with pytest.raises(CommandError, match="cannot read the human answers"):
        call_command("evaluate", simulation.pk, "--human-answers", str(answers))
