"""The cognition's prompt tasks: each task's template (llm/templates/<task>.txt), the schema
of its answer (outputs.py) and its offline rule (agents/offline/)."""

from __future__ import annotations

import random
import re

from agents.cognition.outputs import (
    ANSWER_MAX,
    BLOCKS_MAX,
    CONVERSATION_SUMMARY_MAX,
    DECOMPOSITION_MAX,
    LINE_MAX,
    NOTE_MAX,
    RELATIONSHIP_MAX,
    SUMMARY_MAX,
    Action,
    Block,
    CommitmentOut,
    ConversationSummary,
    DayPlan,
    Decomposition,
    HourlySchedule,
    ImportanceMany,
    Intention,
    InterviewAnswer,
    Line,
    PlanEntry,
    Reaction,
    Relationship,
    Response,
    Summary,
    Takeaways,
)
from agents.offline import actions as offline_actions
from agents.offline import intention as offline_intention
from agents.offline import interview as offline_interview
from agents.offline import judgments as offline_judgments
from agents.offline import news as offline_news
from agents.offline import policy as offline
from agents.offline import talk as offline_talk
from llm.importance import Importance
from llm.tasks import Inputs, PromptTask, task_register


def _day_plan(inputs: Inputs, rng: random.Random) -> DayPlan:
    return DayPlan(
        items=[
            PlanEntry(description=d, start=offline.hhmm(s), duration_minutes=m)
            for d, s, m in offline.day_plan(inputs, rng)
        ]
    )


def _day_covered(schedule: HourlySchedule) -> str:
    """Hour blocks must cover the day from 00:00 to 24:00 without a gap: an hour with no
    block is an hour the resident would not know what to do."""
    covered = 0
    for block in sorted(schedule.blocks, key=lambda b: _minutes_of(b.start)):
        start = _minutes_of(block.start)
        if start > covered:
            return f"the blocks leave {covered // 60:02d}:{covered % 60:02d}-{block.start} empty"
        covered = max(covered, start + block.duration_minutes)
    if covered < 24 * 60:
        return f"the blocks end at {covered // 60:02d}:{covered % 60:02d}, not 24:00"
    return ""


def _day_filled(schedule: HourlySchedule) -> HourlySchedule:
    """The reference implementation's mend for hours a schedule leaves empty: the night
    before the first block and after the last is slept (at the first block's place, where
    the day starts), and a gap between blocks goes on with the block before it."""
    blocks = sorted(schedule.blocks, key=lambda b: _minutes_of(b.start))
    first = blocks[0]
    filled: list[Block] = []
    if (start := _minutes_of(first.start)) > 0:
        filled.append(_sleep(first, 0, start))
    for block in blocks:
        if filled and (gap := _minutes_of(block.start) - _end_of(filled[-1])) > 0:
            previous = filled[-1]
            filled[-1] = previous.model_copy(
                update={"duration_minutes": previous.duration_minutes + gap}
            )
        filled.append(block)
    if (end := max(_end_of(block) for block in filled)) < 24 * 60:
        filled.append(_sleep(first, end, 24 * 60))
    return HourlySchedule(blocks=filled[:BLOCKS_MAX])


def _sleep(at: Block, start: int, end: int) -> Block:
    return Block(
        description="sleeping",
        start=f"{start // 60:02d}:{start % 60:02d}",
        duration_minutes=end - start,
        sector=at.sector,
        arena=at.arena,
    )


def _end_of(block: Block) -> int:
    return _minutes_of(block.start) + block.duration_minutes


def _minutes_of(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def _hourly(inputs: Inputs, rng: random.Random) -> HourlySchedule:
    return HourlySchedule(
        blocks=[
            Block(description=d, start=offline.hhmm(s), duration_minutes=m, sector=se, arena=a)
            for d, s, m, se, a in offline.hourly_blocks(inputs, rng)
        ]
    )


def _decompose(inputs: Inputs, rng: random.Random) -> Decomposition:
    name = str(inputs["agent_name"])
    return Decomposition(
        actions=[
            Action(
                description=d,
                duration_minutes=m,
                object=o,
                emoji=e,
                triple=[name, d.split()[0], o or "room"],
                object_state=s,
            )
            for d, m, o, e, s in offline_actions.actions_for(
                inputs, rng, max_actions=DECOMPOSITION_MAX
            )
        ]
    )


def _line(inputs: Inputs, rng: random.Random) -> Line:
    text, end = offline_talk.converse_line(inputs, rng)
    return Line(line=offline.clip(text, LINE_MAX), end=end)


def _importance_many(inputs: Inputs, rng: random.Random) -> ImportanceMany:
    numbered = [re.sub(r"^\d+\.\s*", "", m) for m in offline.lines_of(inputs["memories"])]
    memories = [m for m in numbered if m.strip()]
    return ImportanceMany(importance=offline_judgments.importances(memories))


IMPORTANCE = task_register(
    PromptTask(
        name="importance",
        template="importance.txt",
        output=Importance,
        offline=lambda i, r: Importance(importance=offline_judgments.importance(str(i["memory"]))),
        description="the poignancy of a memory, 1 (mundane) to 10 (life-changing)",
    )
)
IMPORTANCE_MANY = task_register(
    PromptTask(
        name="importance_many",
        template="importance_many.txt",
        output=ImportanceMany,
        offline=_importance_many,
        description="the poignancy of the memories an agent makes in one step",
    )
)
SUMMARY = task_register(
    PromptTask(
        name="summary",
        template="summary.txt",
        output=Summary,
        offline=lambda i, r: Summary(summary=offline.clip(offline.summary_text(i), SUMMARY_MAX)),
        description="the agent's summary description, once a sim day",
    )
)
DAY_PLAN = task_register(
    PromptTask(
        name="day_plan",
        template="day_plan.txt",
        output=DayPlan,
        offline=_day_plan,
        description="the day in broad strokes",
    )
)
HOURLY_SCHEDULE = task_register(
    PromptTask(
        name="hourly_schedule",
        template="hourly_schedule.txt",
        output=HourlySchedule,
        offline=_hourly,
        description="the day plan as hour blocks at known places",
        check=lambda _inputs, schedule: _day_covered(schedule),
        repair=lambda _inputs, schedule: _day_filled(schedule),
    )
)
DECOMPOSE = task_register(
    PromptTask(
        name="decompose",
        template="decompose.txt",
        output=Decomposition,
        offline=_decompose,
        description="an hour block as 5-15 minute actions at objects",
    )
)
REACT = task_register(
    PromptTask(
        name="react",
        template="react.txt",
        output=Reaction,
        offline=lambda i, r: Reaction(reaction=offline_talk.react(i, r), reason="offline policy"),  # type: ignore[arg-type]
        description="whether to talk, wait or carry on",
    )
)
CONVERSE_LINE = task_register(
    PromptTask(
        name="converse_line",
        template="converse_line.txt",
        output=Line,
        offline=_line,
        description="the next line of a conversation",
    )
)
CONVERSATION_SUMMARY = task_register(
    PromptTask(
        name="conversation_summary",
        template="conversation_summary.txt",
        output=ConversationSummary,
        offline=lambda i, r: ConversationSummary(
            summary=offline.clip(offline_talk.conversation_summary(i), CONVERSATION_SUMMARY_MAX)
        ),
        description="what a conversation was about",
    )
)


def _respond(inputs: Inputs, rng: random.Random) -> Response:
    action = offline_actions.respond_to(str(inputs["object"]), str(inputs["state"]))
    if action is None:
        return Response(respond=False, action="", emoji="", state_after="")
    return Response(respond=True, action=action, emoji="🧯", state_after="idle")


RESPOND_EVENT = task_register(
    PromptTask(
        name="respond_event",
        template="respond_event.txt",
        output=Response,
        offline=_respond,
        description="whether and how to deal with something happening to an object",
    )
)

INTERVIEW = task_register(
    PromptTask(
        name="interview",
        template="interview.txt",
        output=InterviewAnswer,
        offline=lambda i, r: InterviewAnswer(
            answer=offline.clip(offline_interview.interview_answer(i), ANSWER_MAX)
        ),
        description="an answer to a user's interview question, in character",
    )
)


def _commitment(happening: offline_news.Happening | None) -> CommitmentOut | None:
    if happening is None or happening.day is None:
        return None
    return CommitmentOut(
        what=f"going to the {happening.what}",
        place=happening.place,
        date=happening.day.isoformat(),
        start=offline_news.clock(happening.start),
        end=offline_news.clock(happening.end),
    )


def _meant(meant: offline_intention.Meant | None) -> CommitmentOut | None:
    if meant is None:
        return None
    return CommitmentOut(
        what=offline.clip(meant.what, 300),
        place=meant.place,
        date=meant.start.date().isoformat(),
        start=f"{meant.start:%H:%M}",
        end=f"{meant.end:%H:%M}",
    )


def _takeaways(inputs: Inputs, rng: random.Random) -> Takeaways:
    memo, thought, happening = offline_news.takeaways(inputs, rng)
    return Takeaways(
        memo=offline.clip(memo, NOTE_MAX),
        thought=offline.clip(thought, NOTE_MAX),
        commitment=_commitment(happening),
    )


RELATIONSHIP = task_register(
    PromptTask(
        name="relationship",
        template="relationship.txt",
        output=Relationship,
        offline=lambda i, r: Relationship(
            summary=offline.clip(offline_news.relationship(i), RELATIONSHIP_MAX)
        ),
        description="how one resident stands with another, before reacting and each turn",
    )
)
TAKEAWAYS = task_register(
    PromptTask(
        name="conversation_takeaways",
        template="conversation_takeaways.txt",
        output=Takeaways,
        offline=_takeaways,
        description="after a conversation: a memo, a planning thought, maybe a commitment",
    )
)
INTENTION = task_register(
    PromptTask(
        name="intention",
        template="intention.txt",
        output=Intention,
        offline=lambda i, r: Intention(commitment=_meant(offline_intention.intention(i))),
        description="whether a thought commits the resident to a place and time",
    )
)
