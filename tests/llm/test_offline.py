"""The offline backend: deterministic, seeded rules over the same prompts, in the ledger.
Its importance is judged by meaning (agents/offline/judgments.py), from the embedding cache."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.tasks.importance import IMPORTANCE, Importance, importance_rate
from llm.backends import OFFLINE_MODEL, message_list
from llm.inputs import agent_identity
from llm.models import ModelCall
from llm.port import llm_run
from llm.tokens import count_message_tokens, count_tokens
from world.models import Simulation

pytestmark = pytest.mark.django_db

MUNDANE = [
    "Isabella Rodriguez is sleeping",
    "bed is idle",
    "Klaus Mueller is brushing his teeth",
    "Maria Lopez is eating breakfast",
    "Klaus Mueller is walking to the library",
    "Isabella Rodriguez is taking a shower",
]
POIGNANT = [
    "Klaus Mueller's grandmother died last night",
    "Maria Lopez and Klaus Mueller broke up",
    "Isabella Rodriguez got married to her partner",
    "Klaus Mueller was accepted into his PhD program",
    "Sam Moore is running in the mayoral election",
    "a fire broke out at Hobbs Cafe",
    "Maria Lopez has a secret crush on Klaus Mueller",
    "Isabella is planning a Valentine's Day party",
]


def offline(memory: str, seed: int = 0) -> int:
    inputs = {"agent_name": "A", "agent_identity": "", "memory": memory}
    return IMPORTANCE.run_offline(seed=seed, inputs=inputs).importance


def test_mundane_ranks_low_and_life_changing_high() -> None:
    assert max(offline(m) for m in MUNDANE) <= 2
    assert min(offline(m) for m in POIGNANT) >= 6
    assert offline("Klaus Mueller's grandmother died last night") >= 9
    middling = offline("Klaus Mueller is reading about gentrification")
    assert 3 <= middling <= 5


def test_life_events_outrank_routine_in_one_memory() -> None:
    assert offline("Isabella cannot sleep after the funeral") > max(offline(m) for m in MUNDANE)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200), st.integers(min_value=0, max_value=2**63 - 1))
def test_any_memory_rates_1_to_10_deterministically(memory: str, seed: int) -> None:
    assert 1 <= offline(memory, seed) <= 10
    assert offline(memory, seed) == offline(memory, seed)


def test_a_rating_by_meaning_is_the_same_for_every_seed() -> None:
    memory = "Klaus Mueller is at the library desk"
    assert len({offline(memory, seed) for seed in range(20)}) == 1


@pytest.mark.django_db
def test_offline_call_is_a_ledger_row_like_any_other(simulation: Simulation) -> None:
    agent = simulation.agents.get(name="Maria Lopez")
    memory = agent.seed_statements[0]
    rated = offline(memory)
    assert rated >= 7  # "a secret crush"
    assert importance_rate(agent=agent, memory=memory) == rated

    call = ModelCall.objects.get()
    inputs = {"agent_name": agent.name, "agent_identity": agent_identity(agent), "memory": memory}
    prompt = IMPORTANCE.render(inputs)
    assert (call.simulation, call.agent, call.agent_name) == (simulation, agent, agent.name)
    assert (call.task, call.backend, call.model) == ("importance", "offline", OFFLINE_MODEL)
    assert call.prompt == prompt
    assert call.raw_reply == f'{{"importance":{rated}}}'
    assert call.output == {"importance": rated}
    assert call.prompt_tokens == count_message_tokens(message_list(prompt))
    assert call.completion_tokens == count_tokens(call.raw_reply)
    assert call.attempts == 1 and call.error == ""
    assert call.step == 0 and call.sim_time == simulation.start_time
    assert call.finished_at is not None


@pytest.mark.django_db
def test_same_answers_for_a_seed_and_by_meaning_for_every_seed(simulation: Simulation) -> None:
    memory = "Klaus Mueller is at the library desk"
    inputs = {"agent_name": "K", "agent_identity": "", "memory": memory}

    def run(seed: int) -> int:
        Simulation.objects.filter(pk=simulation.pk).update(seed=seed)
        simulation.refresh_from_db()
        output = llm_run(task="importance", inputs=inputs, simulation=simulation)
        assert isinstance(output, Importance)
        return output.importance

    first = [run(seed) for seed in range(12)]
    assert first == [run(seed) for seed in range(12)]
    assert len(set(first)) == 1  # not drawn: the memory's meaning decides
    assert isinstance(llm_run(task=IMPORTANCE, inputs=inputs), Importance)


@pytest.mark.django_db
def test_an_offline_output_that_breaks_its_schema_is_a_ledgered_invalid_output() -> None:
    """A policy whose output breaks the task's schema ends the call as ModelOutputInvalid,
    recorded in the ledger, not as an unhandled validation error."""
    from pydantic import BaseModel, Field

    from llm.errors import ModelOutputInvalid
    from llm.models import ModelCall
    from llm.port import llm_run
    from llm.tasks import PromptTask

    class Short(BaseModel):
        text: str = Field(max_length=5)

    task = PromptTask(  # the importance prompt, with a policy that breaks its schema
        name="importance_too_long",
        template=IMPORTANCE.template,
        output=Short,
        offline=lambda inputs, rng: Short(text="far more than five characters"),
    )
    with pytest.raises(ModelOutputInvalid) as failed:
        llm_run(task=task, inputs={"agent_name": "K", "agent_identity": "", "memory": "a walk"})
    assert failed.value.call_id is not None
    call = ModelCall.objects.get(pk=failed.value.call_id)
    assert call.task == "importance_too_long" and call.finished_at is not None
    assert "breaks the schema" in call.error and call.output is None
