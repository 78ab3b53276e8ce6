"""The paper's cognition (Park et al. 2023, section 4): one agent's step, in the paper's order.

Everything the agent decides becomes event drafts: new memories (observations, plans,
conversations, rated in one `importance_many` call per step), plan rows, its current
action, object states and conversations. Model calls happen here, in the agent-step task,
never inside the tick's commit.

Per agent and sim day: one summary, one day plan, one hourly schedule; per waking hour
block one decomposition into 5-15 minute actions (lazily, when the block starts); per new
person seen, one reaction; per conversation, a line per turn and a summary. The parts:
`mind` (the step's state), `recall`, `planning`, `places`, `acting`, `perception`,
`conversation`.
"""

from __future__ import annotations

from agents.cognition import StepContext
from agents.cognition.acting import act
from agents.cognition.conversation import reply_line
from agents.cognition.mind import Mind
from agents.cognition.news import intend
from agents.cognition.perception import is_free, perceive, react, respond_to_objects
from agents.cognition.planning import current_block, plan_day, plan_from_now, replan_rest_of_day
from agents.cognition.ratings import ratings_apply
from agents.cognition.recall import remember
from agents.cognition.selectors import commitments_unplanned, memory_number_of
from agents.events import agent_moved, agent_thought_handled, plan_revised
from agents.sleep import is_sleeping
from world.eventlog import EventDraft
from world.models import Agent


class PaperCognition:
    def decide(self, *, context: StepContext, agent: Agent) -> list[EventDraft]:
        return run(Mind(context, agent))


def run(mind: Mind) -> list[EventDraft]:
    """Plan (once a day), heed the inner voice, perceive, respond or react, act, remember."""
    agent = mind.agent
    ratings_apply(mind)  # the ratings of memories made `importance_delay` steps ago
    if agent.user_controlled:
        # A user moves it (through the API); it perceives and remembers like anyone.
        perceive(mind)
        if agent.path:
            mind.emit(agent_moved(agent=mind.name, tile=agent.path[0]))
        remember(mind)
        return mind.out
    if agent.plan_date != mind.now.date():
        plan_day(mind)
    replan = take_thought(mind)
    # A plan made this step (`plan_day`) has all of the day's commitments in it already.
    planned = "no_planning" in mind.ablations or mind.blocks is not None
    ahead = mind.context.commitments_ahead.get(agent.pk, [])
    cited = mind.context.cited.get(agent.pk, set()) if ahead else set()
    if not planned and commitments_unplanned(agent=agent, now=mind.now, ahead=ahead, cited=cited):
        replan_rest_of_day(mind)  # a commitment made since for later today
    people = perceive(mind)
    reacted = False
    if not is_sleeping(agent.action):
        # Something a user set happening to an object (a fire) comes first: it breaks off
        # a conversation too.
        reacted = respond_to_objects(mind)
    if not reacted and people and is_free(agent, step=mind.step) and not asleep_by_plan(mind):
        reacted = react(mind, people[0])
    if not reacted:
        act(mind, replan=replan)
    remember(mind)
    return mind.out


def asleep_by_plan(mind: Mind) -> bool:
    """Whether its plan has the resident asleep now (before it first lies down too: the
    first step of a night): it starts no conversation."""
    block = current_block(mind)
    return block is not None and block.sleeping


def take_thought(mind: Mind) -> bool:
    """The inner voice: a new thought re-plans the rest of the day from now; one that
    means to do something at a time or a place today is in the plan at once."""
    thought = mind.agent.pending_thought
    if not thought:
        return False
    mind.emit(plan_revised(agent=mind.name, since=mind.now.isoformat()))
    mind.emit(agent_thought_handled(agent=mind.name))
    mind.thought = thought
    made = intend(mind, thought, plan_from_now(mind))
    if made is not None and made.start.date() == mind.now.date():
        made.memory = memory_number_of(agent=mind.agent, description=thought)
        replan_rest_of_day(mind, [made])  # a later day's plan takes it when it is made
    return True


__all__ = ["PaperCognition", "reply_line", "run"]
