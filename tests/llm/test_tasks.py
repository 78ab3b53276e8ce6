"""Prompt tasks: templates under version control, rendered with exactly their named inputs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from agents.tasks.importance import IMPORTANCE
from llm.errors import TaskInputError, UnknownTask
from llm.tasks import PromptTask, task_get, task_list, task_register
from llm.tokens import count_message_tokens, count_tokens

INPUTS = {"agent_name": "Klaus Mueller", "agent_identity": "Name: Klaus", "memory": "x"}


def test_importance_renders_the_papers_prompt() -> None:
    prompt = IMPORTANCE.render({**INPUTS, "memory": "Klaus Mueller is reading a book"})
    assert prompt.startswith("Here is a brief description of Klaus Mueller.\nName: Klaus\n")
    assert "1 is purely mundane (e.g., brushing teeth, making bed)" in prompt
    assert "10 is extremely poignant (e.g., a break up, college acceptance)" in prompt
    assert "Memory: Klaus Mueller is reading a book" in prompt
    assert prompt.rstrip().endswith('{"importance": <an integer from 1 to 10>}.')
    assert "#" not in prompt  # the documenting header is not sent


def test_inputs_must_match_the_placeholders() -> None:
    with pytest.raises(TaskInputError, match=r"missing inputs \['memory'\]"):
        IMPORTANCE.render({"agent_name": "a", "agent_identity": "b"})
    with pytest.raises(TaskInputError, match=r"unknown \['mood'\]"):
        IMPORTANCE.render({**INPUTS, "mood": "sad"})


def test_inputs_are_substituted_once_not_reinterpreted() -> None:
    prompt = IMPORTANCE.render({**INPUTS, "memory": "costs $5 and ${agent_name}"})
    assert "Memory: costs $5 and ${agent_name}" in prompt


ROOT = Path(__file__).resolve().parents[2]


def test_every_registered_task_has_its_template() -> None:
    assert task_get("importance") is IMPORTANCE
    for task in task_list():
        assert task.template.is_file()
        assert task.input_names
    with pytest.raises(UnknownTask):
        task_get("no-such-task")


def test_a_task_of_the_mind_is_one_folder() -> None:
    """agents/tasks/<task>/ holds the task's template, its answer's schema, its offline
    rule and its registration: the folder is named for the task, the registration is its
    module, and the llm layer holds no template."""
    folders = {p.parent.name for p in (ROOT / "agents/tasks").glob("*/template.txt")}
    mind = {task.name: task for task in task_list() if task.name != "believability_judge"}
    assert folders == set(mind)
    for name, task in mind.items():
        folder = ROOT / "agents/tasks" / name
        assert task.template == folder / "template.txt"
        assert task.output.__module__ == f"agents.tasks.{name}"
        assert task.offline.__module__ == f"agents.tasks.{name}"
    assert not list((ROOT / "llm").rglob("*.txt"))


def test_a_name_registers_once() -> None:
    class Out(BaseModel):
        value: int

    clash = PromptTask(
        name="importance",
        template=IMPORTANCE.template,
        output=Out,
        offline=lambda inputs, rng: Out(value=1),
    )
    with pytest.raises(ValueError, match="already registered"):
        task_register(clash)
    with pytest.raises(FileNotFoundError):
        task_register(
            PromptTask(
                name="nameless",
                template=IMPORTANCE.template.with_name("missing.txt"),
                output=Out,
                offline=lambda inputs, rng: Out(value=1),
            )
        )


def test_seed_is_stable_and_depends_on_simulation_seed_task_and_inputs() -> None:
    seed = IMPORTANCE.seed(simulation_seed=7, inputs=INPUTS)
    assert seed == IMPORTANCE.seed(simulation_seed=7, inputs=dict(reversed(INPUTS.items())))
    assert seed != IMPORTANCE.seed(simulation_seed=8, inputs=INPUTS)
    assert seed != IMPORTANCE.seed(simulation_seed=7, inputs={**INPUTS, "memory": "y"})
    assert 0 <= seed < 2**63


def test_token_counter_examples() -> None:
    assert count_tokens("") == 0
    assert count_tokens("the cat sat") == 3
    assert count_tokens("poignancy") == 2  # 9 letters: two pieces
    assert count_tokens('{"importance": 7}') == 8  # { " importance(2) " : 7 }
    assert count_tokens("2024") == 2
    assert count_tokens("line\n\nline") == 3
    messages = [{"role": "user", "content": "the cat sat"}]
    assert count_message_tokens(messages) == 3 + 3 + 3


@given(st.text(), st.text())
def test_token_counts_add_up_over_whitespace(a: str, b: str) -> None:
    assert count_tokens(f"{a} {b}") == count_tokens(a) + count_tokens(b)
    assert count_tokens(a) <= len(a)


@pytest.mark.django_db  # the importance rule reads the embedding cache
def test_offline_policy_gets_a_seeded_generator() -> None:
    out = IMPORTANCE.run_offline(seed=3, inputs={**INPUTS, "memory": "Klaus is at the desk"})
    again = IMPORTANCE.offline({**INPUTS, "memory": "Klaus is at the desk"}, random.Random(3))
    assert out == again
