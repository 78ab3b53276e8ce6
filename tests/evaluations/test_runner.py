"""Running an evaluation: the command and the service finish it once, side by side."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from evaluations.models import Evaluation, EvaluationStatus
from evaluations.runner import evaluation_run
from evaluations.services import evaluation_create
from tests.factories import three_residents


def test_the_command_compares_simulations_and_reports_json(user):
    a, b = three_residents(user, 8), three_residents(user, 9)
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
    simulation = three_residents(user, 10)
    evaluation = evaluation_run(
        evaluation=evaluation_create(simulation=simulation, kinds=["diffusion"])
    )
    finished = evaluation.finished_at
    again = evaluation_run(evaluation=evaluation)
    assert again.finished_at == finished
    assert set(again.result["simulations"][str(simulation.pk)]) == {"news"}


def test_the_command_refuses_a_step_beyond_thethree_residents(user):
    simulation = three_residents(user, 11)
    with pytest.raises(CommandError, match="beyond"):
        call_command("evaluate", simulation.pk, "--step", "999")
    assert not Evaluation.objects.exists()


def test_the_command_takes_conditions_and_a_file_of_human_answers(user, tmp_path):
    simulation = three_residents(user, 12)
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
