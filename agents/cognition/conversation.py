"""Conversation: turn by turn, each line from what the speaker retrieves about the
listener; its summary, the memories both keep, and the cooldowns after it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

from agents.cognition import StepContext
from agents.cognition.identity import summary
from agents.cognition.mind import Mind, Note, summary_of
from agents.cognition.news import relationship_with, takeaways_ask, takeaways_keep
from agents.cognition.recall import important, remember, statements
from agents.events import agent_acting, agent_chat_cooldown, conversation_held, plan_revised
from agents.payloads import ConversationLine
from agents.tasks.conversation_summary import CONVERSATION_SUMMARY
from agents.tasks.converse_line import CONVERSE_LINE, Line
from llm.inputs import agent_identity
from llm.port import llm_run
from llm.together import together
from memories.models import MemoryKind
from world.eventlog import EventDraft
from world.models import Agent

MAX_ROUNDS = 8  # a conversation ends by decision or after 8 rounds
COOLDOWN_MINUTES = 60  # the same pair does not talk again within a sim hour
RESPITE_MINUTES = 30  # nor does either start another conversation within half an hour
ANYONE = "*"  # the chat_cooldowns key of the respite


def converse(mind: Mind, other: Agent) -> None:
    """Up to `MAX_ROUNDS` rounds between the agent and `other`; both then chat until as
    many steps as lines have passed, keep a memory of it, and cool down."""
    name, place = mind.name, mind.here
    lines: list[ConversationLine] = []
    speakers = [(mind.agent, other), (other, mind.agent)]
    summaries = {name: summary(mind), other.name: summary_of(mind, other)}
    # How each stands with the other: both asked at once, each once (`relationship_with`).
    together(*(partial(relationship_with, mind, a, b) for a, b in speakers))
    done = False
    for _ in range(MAX_ROUNDS):
        for speaker, listener in speakers:
            bond = relationship_with(mind, speaker, listener)
            result = line(mind, speaker, listener, lines, place, summaries[speaker.name], bond)
            lines.append(ConversationLine(speaker=speaker.name, text=result.line))
            if result.end:
                done = True
                break
        if done:
            break
    # The summary and what each takes away read only the lines: asked at once.
    summarized, *taken = together(
        partial(
            llm_run,
            task=CONVERSATION_SUMMARY,
            inputs={
                "participants": f"{name} and {other.name}",
                "place": place,
                "dialogue": [f"{line['speaker']}: {line['text']}" for line in lines],
            },
            simulation=mind.simulation,
            agent=mind.agent,
        ),
        *(
            partial(
                takeaways_ask,
                mind,
                me=me,
                partner=partner,
                lines=lines,
                relationship=relationship_with(mind, me, partner),
            )
            for me, partner in speakers
        ),
    )
    gist = summarized.summary
    # Every event of the conversation names its initiator, so the commit can drop it whole.
    tag = name
    mind.emit(
        conversation_held(
            agent=name,
            participants=[name, other.name],
            lines=lines,
            summary=gist,
            address=place,
            conversation=tag,
        )
    )
    end_step = mind.step + max(2, len(lines))
    for (me, partner), takeaways in zip(speakers, taken, strict=True):
        spo = (me.name, "talked with", partner.name)
        mind.notes.append(Note(me.name, MemoryKind.CONVERSATION, gist, spo, tag))
        mind.emit(
            agent_acting(
                agent=me.name,
                action=f"chatting with {partner.name}",
                emoji="💬",
                address=place,
                spo=[me.name, "chats with", partner.name],
                start_step=mind.step,
                end_step=end_step,
                chatting_with=partner.name,
                conversation=tag,
            )
        )
        mind.emit(plan_revised(agent=me.name, since=mind.now.isoformat(), conversation=tag))
        for who, minutes in ((partner.name, COOLDOWN_MINUTES), (ANYONE, RESPITE_MINUTES)):
            until = mind.step + minutes * 60 // mind.simulation.sec_per_step
            mind.emit(
                agent_chat_cooldown(agent=me.name, partner=who, until_step=until, conversation=tag)
            )
        takeaways_keep(mind, me=me, partner=partner, result=takeaways, tag=tag)


GREETING_WAIT_MINUTES = 2  # how long a resident who spoke to a person waits for an answer


def greet(mind: Mind, other: Agent) -> None:
    """Speak first to a person (a user-controlled resident): the agent's opening line only,
    as the person's words are theirs to type (`agent_say`). Both remember it; the agent
    waits a little for an answer and cools down as after a conversation."""
    name, place = mind.name, mind.here
    bond = relationship_with(mind, mind.agent, other)
    opening = line(mind, mind.agent, other, [], place, summary(mind), bond).line
    record = f'{name} said to {other.name}: "{opening}"'
    tag = name
    mind.emit(
        conversation_held(
            agent=name,
            participants=[name, other.name],
            lines=[ConversationLine(speaker=name, text=opening)],
            summary=record,
            address=place,
            conversation=tag,
        )
    )
    for me, partner in ((mind.agent, other), (other, mind.agent)):
        spo = (me.name, "talked with", partner.name)
        mind.notes.append(Note(me.name, MemoryKind.CONVERSATION, record, spo, tag))
    wait = GREETING_WAIT_MINUTES * 60 // mind.simulation.sec_per_step
    mind.emit(
        agent_acting(
            agent=name,
            action=f"waiting for {other.name} to answer",
            emoji="💬",
            address=place,
            spo=[name, "chats with", other.name],
            start_step=mind.step,
            end_step=mind.step + max(1, wait),
            chatting_with=other.name,
            conversation=tag,
        )
    )
    for who, minutes in ((other.name, COOLDOWN_MINUTES), (ANYONE, RESPITE_MINUTES)):
        until = mind.step + minutes * 60 // mind.simulation.sec_per_step
        mind.emit(agent_chat_cooldown(agent=name, partner=who, until_step=until, conversation=tag))


def line(
    mind: Mind,
    speaker: Agent,
    listener: Agent,
    lines: Sequence[Mapping[str, object]],
    place: str,
    speaker_summary: str,
    relationship: str,
) -> Line:
    """The next line of a conversation, from how the speaker stands with the listener,
    what it retrieves about the listener (and the last line) and what it finds most
    important."""
    last = lines[-1]["text"] if lines else ""
    memories = important(mind, speaker) + statements(
        mind, speaker, f"{listener.name}. {last}".strip(), k=4
    )
    return llm_run(
        task=CONVERSE_LINE,
        inputs={
            "summary": speaker_summary,
            "time": mind.now.strftime("%H:%M"),
            "place": place,
            "speaker": speaker.name,
            "listener": listener.name,
            "relationship": relationship,
            "memories": [f"{i}. {m}" for i, m in enumerate(memories, 1)] or ["none"],
            "dialogue": [f"{line['speaker']}: {line['text']}" for line in lines]
            or ["(nothing yet)"],
        },
        simulation=mind.simulation,
        agent=speaker,
    )


def reply_line(
    *, context: StepContext, speaker: Agent, listener: Agent, lines: list[dict[str, str]]
) -> tuple[str, list[EventDraft]]:
    """What `speaker` says next to `listener` after `lines` (one model call), and the touch
    events of its retrievals: how a resident answers a user-controlled agent."""
    mind = Mind(context, speaker)
    place = context.arena_at(speaker.tile)
    bond = relationship_with(mind, speaker, listener)
    identity = speaker.summary or agent_identity(speaker)
    result = line(mind, speaker, listener, lines, place, identity, bond)
    remember(mind)  # no notes: only the touches
    return result.line, mind.out
