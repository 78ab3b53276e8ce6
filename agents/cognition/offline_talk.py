"""Offline policies of talk: whether to talk, the lines of a conversation (passing on, in
the first person, what the speaker finds most important, so news spreads), its summary,
and the answers to an interview."""

from __future__ import annotations

import random
import re

from llm.tasks import Inputs

from .offline import lines_of


def react(inputs: Inputs, rng: random.Random) -> str:
    mine, theirs = str(inputs["action"]).lower(), str(inputs["observed_action"]).lower()
    if any(w in mine or w in theirs for w in ("sleep", "chatting", "conversation")):
        return "continue"
    knows = str(inputs["observed_name"]) in str(inputs["context"])
    return "talk" if rng.random() < (0.35 if knows else 0.05) else "continue"


_PRONOUNS = [
    (r"\b[Yy]ou (have|had|were|like|love|want|think|know|feel|often|sometimes|need)\b", r"I \1"),
    (r"\bYou are\b", "I am"),
    (r"\byou are\b", "I am"),
    (r"\bYou've\b", "I've"),
    (r"\bYou\b", "I"),
    (r"\byour\b", "my"),
    (r"\bYour\b", "My"),
    (r"\byou\b", "me"),
]


def first_person(statement: str, speaker: str) -> str:
    text = statement.replace(f"{speaker} is", "I am").replace(speaker, "I")
    for pattern, replacement in _PRONOUNS:
        text = re.sub(pattern, replacement, text)
    return text.strip().rstrip(".")


def converse_line(inputs: Inputs, rng: random.Random) -> tuple[str, bool]:
    speaker, listener = str(inputs["speaker"]), str(inputs["listener"])
    dialogue = [line for line in lines_of(inputs["dialogue"]) if ": " in line]
    said = [line.split(": ", 1)[1] for line in dialogue if line.startswith(f"{speaker}: ")]
    heard = " ".join(dialogue)
    first = listener.split()[0]
    if not dialogue:
        return f"Hi {first}, good to see you! How are you?", False
    memories = [re.sub(r"^\d+\.\s*", "", m) for m in lines_of(inputs["memories"])]
    for memory in memories:  # an invitation the speaker means to give this listener
        if "invite" in memory.lower() and first in memory and "invited" not in heard:
            party = next((m for m in memories if "party" in m.lower() and m != memory), "")
            detail = f" {first_person(party, speaker)}." if party else ""
            return f"By the way, {first}, you are invited to my party!{detail}", False
    for memory in memories:
        if "had a conversation" in memory or " said: " in memory or len(memory) > 300:
            continue  # pass on what one knows, not hearsay of hearsay
        news = first_person(memory, speaker)
        if news and news not in heard and len(news) > 10:
            opener = "Oh, and " if said else "I'm well, thanks! By the way, "
            return f"{opener}{news}.", len(said) >= 2
    return f"It was nice talking to you, {first}. See you around!", True


def interview_answer(inputs: Inputs) -> str:
    """An answer in the first person from the two most relevant memories retrieved."""
    name = str(inputs["agent_name"])
    memories = [re.sub(r"^\d+\.\s*", "", m).strip() for m in lines_of(inputs["memories"])]
    facts: list[str] = []
    for memory in memories:
        fact = first_person(memory, name)
        if len(fact) > 10 and fact not in facts:
            facts.append(fact)
        if len(facts) == 2:
            break
    if not facts:
        return "I'm not sure; I don't remember anything about that."
    return " ".join(f"{fact[0].upper()}{fact[1:]}." for fact in facts)


def conversation_summary(inputs: Inputs) -> str:
    lines = [line for line in lines_of(inputs["dialogue"]) if ": " in line]
    news = [line for line in lines if "By the way" in line or "Oh, and" in line]
    about = "; ".join(line.replace(": ", ' said: "', 1) + '"' for line in news[:3])
    return f"{inputs['participants']} had a conversation. {about}".strip()
