"""A prompt task is one folder (agents/tasks/<task>/): its template, schema, offline rule and
registration answer together. Each task here is rendered and answered offline as the
`offline` backend answers it, with people, places and news made up for the test."""

from __future__ import annotations

from typing import Any

import pytest

from agents.offline.terms import recurring_terms, statement_lines
from agents.tasks.converse_line import CONVERSE_LINE, LINE_MAX, Line
from agents.tasks.importance_many import IMPORTANCE_MANY, ImportanceMany
from agents.tasks.intention import INTENTION, Intention
from agents.tasks.respond_event import RESPOND_EVENT, Response
from llm.tasks import Inputs, PromptTask

pytestmark = pytest.mark.django_db


def _answer(task: PromptTask[Any], inputs: Inputs) -> object:
    """The prompt renders with exactly these inputs, and the offline rule answers."""
    assert task.render(inputs)
    seed = task.seed(simulation_seed=5, inputs=inputs)
    return task.output.model_validate(task.run_offline(seed=seed, inputs=inputs).model_dump())


def test_converse_line_tells_what_the_speaker_is_about_now() -> None:
    inputs = {
        "summary": "Rhian Gask is 38 years old. Rhian Gask is holding a seed swap at the "
        "Tollon chapel hall on Sunday from 10am.",
        "time": "11:05",
        "place": "Tollon green",
        "speaker": "Rhian Gask",
        "listener": "Emrys Vane",
        "relationship": "neighbours",
        "memories": ["1. Rhian Gask and Emrys Vane have lived on the same lane for years"],
        "dialogue": ["Emrys Vane: Hi Rhian, how are you?"],
    }
    line = _answer(CONVERSE_LINE, inputs)
    assert isinstance(line, Line) and len(line.line) <= LINE_MAX
    assert "seed swap" in line.line and "Rhian Gask" not in line.line


def test_importance_many_rates_each_memory_of_a_step() -> None:
    memories = [
        "Corra Lusk saw a gull on the harbour wall",
        "Corra Lusk's brother was rushed to hospital after a fall from the pier",
        "the kettle is idle",
    ]
    inputs = {
        "agent_name": "Corra Lusk",
        "agent_identity": "Name: Corra Lusk\nCurrently: Corra Lusk runs the net loft.",
        "memories": [f"{i}. {m}" for i, m in enumerate(memories, 1)],
    }
    rated = _answer(IMPORTANCE_MANY, inputs)
    assert isinstance(rated, ImportanceMany) and len(rated.importance) == 3
    assert rated.importance[1] > max(rated.importance[0], rated.importance[2])


def test_intention_commits_to_a_place_and_hour_of_the_residents_own_tree() -> None:
    inputs = {
        "thought": "I'll be at the Penhale boathouse at 5pm to help Jory paint the gig",
        "date": "2025-04-11",
        "time": "09:30",
        "places": "Penhale boathouse: slipway\nJory's cottage: kitchen",
        "plan": ["2025-04-11 09:00-12:00: baking, at kitchen of Jory's cottage"],
        "summary": "Demelza Roe bakes for the quay cafe.",
        "agent_name": "Demelza Roe",
    }
    meant = _answer(INTENTION, inputs)
    assert isinstance(meant, Intention) and meant.commitment is not None
    assert (meant.commitment.place, meant.commitment.start) == (
        "Penhale boathouse:slipway",
        "17:00",
    )
    assert meant.commitment.date == "2025-04-11"


def test_respond_event_deals_with_an_alarming_state_only() -> None:
    inputs = {
        "agent_name": "Hedd Pryce",
        "summary": "Hedd Pryce keeps the smithy.",
        "time": "14:00",
        "action": "shoeing a horse",
        "object": "forge",
        "state": "burning",
    }
    alarmed = _answer(RESPOND_EVENT, inputs)
    assert isinstance(alarmed, Response) and alarmed.respond and alarmed.action
    calm = _answer(RESPOND_EVENT, {**inputs, "state": "idle"})
    assert isinstance(calm, Response) and not calm.respond


def test_recurring_terms_put_people_first_and_never_the_agent() -> None:
    lines = statement_lines(
        [
            "1. Nessa Carrow sold Tam Liddel a lantern",
            "2. Tam Liddel mended the lantern for Nessa Carrow",
            "3. Tam Liddel walked to the lantern market",
        ]
    )
    terms = recurring_terms(lines, "Nessa Carrow")
    assert terms[0].text == "Tam Liddel" and terms[0].person and terms[0].statements == (1, 2, 3)
    assert "lantern" in [t.text for t in terms if not t.person]
    assert all("Nessa" not in t.text for t in terms)
