"""The prompt reader: rules that answer each prompt from the prompt's text alone, served by
the tests' model server (`ModelServer(FromPrompt(answer))`, tests/model_server.py).

It stands in for a model to show that the prompts carry what a model needs: it reads
nothing but the rendered prompt (the user message of the request; never the
Python inputs, the response format's name or the schema), so an answer can only be as
good as what the prompt says. Template comments are not sent, so the task is recognised
by the JSON object the prompt asks for at its end (and, for the two tasks that ask for
`{"summary": ...}`, by their wording).

The answers are small rules, one function per task in `ANSWERS`:
- `converse_line` passes on the first memory listed (the speaker's most important come
  first) that tells of a happening (names a date and a time), with its source when the
  memory says "(X told me)"; with nothing new to say, it closes the conversation;
- `conversation_takeaways` rewrites the partner's line that carries news as a memo,
  "<fact> (<partner> told me).", and commits to go when the news names a place of the
  prompt's "Places ... knows:" section, a date and a time (the year from the prompt's date);
- the planning tasks make plans of the times and places named in the prompt;
- the rest give minimal valid answers from the prompt's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

Answer = dict[str, Any]

_MONTHS = "January February March April May June July August September October November December"
_MONTH = {name: number for number, name in enumerate(_MONTHS.split(), start=1)}
_DATE = re.compile(rf"\b(?P<month>{'|'.join(_MONTH)}) (?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b")
_CLOCK = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)"
_FROM_TO = re.compile(rf"\bfrom {_CLOCK}(?: to {_CLOCK})?", re.IGNORECASE)
_AT = re.compile(rf"\bat {_CLOCK}", re.IGNORECASE)
_TOLD = re.compile(r"^(?P<fact>.+?)\s*\((?P<source>[^()]+) told me\)\.?$")
_RETOLD = re.compile(r"^(?:.+? told me that |Did you hear\? )(?P<fact>.+)$")
_HAPPENINGS = ("party", "celebration", "meeting", "dinner", "concert", "event")
_NEWS_WORDS = ("party", "told me", "invite", "will go")
_SECOND_TO_FIRST = [
    (r"\b[Yy]ou are\b", "I am"),
    (r"\b[Yy]ou have\b", "I have"),
    (r"^you\b", "I"),
    (r"\bYou\b", "I"),
    (r"\byou\b", "me"),
    (r"\bYour\b", "My"),
    (r"\byour\b", "my"),
]
_FIRST_TO_THIRD = [
    (r"\bI am\b|\bI'm\b", "{name} is"),
    (r"\bI have\b|\bI've\b", "{name} has"),
    (r"\b[Mm]y\b", "{name}'s"),
    (r"\bI\b|\bme\b", "{name}"),
]


# -- reading a prompt ------------------------------------------------------------------


def section(prompt: str, header: str) -> list[str]:
    """The lines after the first line that matches the regular expression `header` (and
    what follows the match on that line), up to the next blank line."""
    lines = prompt.splitlines()
    for i, line in enumerate(lines):
        found = re.match(header, line)
        if found:
            rest = line[found.end() :].strip()
            kept = [rest] if rest else []
            for following in lines[i + 1 :]:
                if not following.strip():
                    break
                kept.append(following.strip())
            return kept
    return []


def places_section(prompt: str) -> dict[str, list[str]]:
    """The "Places <name> knows:" section as sector -> arenas."""
    places: dict[str, list[str]] = {}
    for line in section(prompt, r"Places .+? knows(?: \(sector: arenas\))?:"):
        sector, _, arenas = line.partition(":")
        if sector.strip() and arenas.strip():
            places[sector.strip()] = [a.strip() for a in arenas.split(",") if a.strip()]
    return places


def numbered(lines: list[str]) -> list[str]:
    """The texts of the numbered lines ("1. text")."""
    return [re.sub(r"^\d+\.\s*", "", line) for line in lines if re.match(r"^\d+\.", line)]


def dialogue(prompt: str, header: str) -> list[tuple[str, str]]:
    """(speaker, text) of the dialogue section's lines."""
    said = []
    for line in section(prompt, header):
        speaker, colon, text = line.partition(": ")
        if colon:
            said.append((speaker, text))
    return said


def fact_and_source(memory: str) -> tuple[str, str]:
    """A memo "<fact> (<name> told me)." as (fact, name); any other memory as (it, "")."""
    told = _TOLD.match(memory.strip())
    if told:
        return told["fact"].rstrip("."), told["source"]
    return memory.strip().rstrip("."), ""


def first_person(memory: str) -> str:
    """A statement addressed to the speaker ("You are planning a party"), said by it."""
    for pattern, said in _SECOND_TO_FIRST:
        memory = re.sub(pattern, said, memory)
    return memory


def third_person(said: str, speaker: str) -> str:
    """What `speaker` said of itself ("I am planning my party"), as a fact about it."""
    for pattern, fact in _FIRST_TO_THIRD:
        said = re.sub(pattern, fact.format(name=speaker), said)
    return said


def minutes(hour: str, minute: str | None, half: str) -> int:
    return (int(hour) % 12 + (12 if half.lower() == "pm" else 0)) * 60 + int(minute or 0)


def hhmm(total: int) -> str:
    total = max(0, min(total, 24 * 60 - 1))
    return f"{total // 60:02d}:{total % 60:02d}"


def when(text: str) -> tuple[int, int, int, int] | None:
    """(month, day, start, end) a text names: a date and a clock time (or window)."""
    day = _DATE.search(text)
    window = _FROM_TO.search(text)
    if day is None:
        return None
    if window is not None:
        start = minutes(window[1], window[2], window[3])
        end = minutes(window[4], window[5], window[6]) if window[4] else start + 120
    else:
        at = _AT.search(text)
        if at is None:
            return None
        start = minutes(at[1], at[2], at[3])
        end = start + 120
    return _MONTH[day["month"]], int(day["day"]), start, end


def is_news(text: str) -> bool:
    return when(text) is not None


def place_named(text: str, places: dict[str, list[str]]) -> str:
    """The "sector: arena" of the longest known sector the text names ("" if none)."""
    for sector in sorted(places, key=len, reverse=True):
        if sector in text and places[sector]:
            return f"{sector}: {places[sector][0]}"
    return ""


def commitment_in(text: str, places: dict[str, list[str]], today: date) -> Answer | None:
    """Going to what the text tells of, when it names a known place, a date and a time."""
    found, place = when(text), place_named(text, places)
    if found is None or not place:
        return None
    month, day, start, end = found
    on = date(today.year, month, day)
    if on < today:
        return None
    what = next((w for w in _HAPPENINGS if w in text.lower()), "gathering")
    return {
        "what": f"going to the {what}",
        "place": place,
        "date": on.isoformat(),
        "start": hhmm(start),
        "end": hhmm(max(end, start + 30)),
    }


def today_in(prompt: str) -> date | None:
    found = re.search(r"\bIt is \d{2}:\d{2} on (\d{4}-\d{2}-\d{2})\.", prompt)
    return date.fromisoformat(found[1]) if found else None


def clock_words(total: int) -> str:
    hour, minute = divmod(total, 60)
    return f"{hour % 12 or 12}{f':{minute:02d}' if minute else ''}{'am' if hour < 12 else 'pm'}"


# -- the answers, per task -------------------------------------------------------------


def converse_line(prompt: str) -> Answer:
    talk = re.search(r"^It is .+?\. (.+) is talking with (.+)\.$", prompt, re.MULTILINE)
    assert talk is not None, "a converse_line prompt names the speaker and the listener"
    listener = talk[2]
    heard = " ".join(text for _, text in dialogue(prompt, "The conversation so far:"))
    memories = numbered(section(prompt, rf"What {re.escape(talk[1])} remembers that bears on"))
    for memory in memories:
        fact, source = fact_and_source(memory)
        # One's own intentions ("I will go...") are not news to pass on.
        if is_news(fact) and not fact.startswith("I ") and fact not in heard:
            if source:
                said = f"{source} told me that {fact}."
            else:
                said = f"Did you hear? {first_person(fact)}."
            return {"line": said, "end": False}
    return {"line": f"It was nice talking to you, {listener.split()[0]}.", "end": True}


def takeaways(prompt: str) -> Answer:
    talk = re.search(r"^It is .+?\. (.+) just talked with (.+)\.$", prompt, re.MULTILINE)
    nothing: Answer = {"memo": "", "thought": "", "commitment": None}
    if talk is None:
        return nothing
    partner = talk[2]
    news = [
        retold["fact"] if (retold := _RETOLD.match(text)) else text
        for speaker, text in dialogue(prompt, "The conversation:")
        if speaker == partner and is_news(text)
    ]
    news = [third_person(fact, partner) for fact in news]
    if not news:
        return nothing
    fact = news[0].rstrip(".")
    memo = f"{fact} ({partner} told me)."
    today = today_in(prompt)
    commitment = commitment_in(fact, places_section(prompt), today) if today else None
    if commitment is None:
        return {"memo": memo, "thought": "", "commitment": None}
    on = date.fromisoformat(commitment["date"])
    start = int(commitment["start"][:2]) * 60 + int(commitment["start"][3:])
    thought = (
        f"I will go to the {commitment['what'].removeprefix('going to the ')} at "
        f"{commitment['place'].split(':')[0]} on {on:%B} {on.day} at {clock_words(start)}."
    )
    return {"memo": memo, "thought": thought, "commitment": commitment}


def intention(prompt: str) -> Answer:
    thought = re.search(r' thinks: "(.*)"$', prompt, re.MULTILINE)
    today = today_in(prompt)
    if thought is None or today is None:
        return {"commitment": None}
    return {"commitment": commitment_in(thought[1], places_section(prompt), today)}


def relationship(prompt: str) -> Answer:
    asked = re.search(r"^What (.+) remembers about (.+):$", prompt, re.MULTILINE)
    assert asked is not None, "a relationship prompt names both residents"
    name, other = asked[1], asked[2]
    known = [s for s in numbered(section(prompt, re.escape(asked[0]))) if other in s]
    if not known:
        return {"summary": f"{name} does not know {other} yet."}
    return {"summary": f"{name} knows {other}: {known[0].rstrip('.')}."[:500]}


def react(prompt: str) -> Answer:
    seen = re.search(r"^It is .+?\. (.+) is (.+)\.\n\1 sees: (.+?) is (.+)\.$", prompt, re.M)
    assert seen is not None, "a react prompt says what both are doing"
    recalled = section(prompt, re.escape(f"What {seen[1]} remembers about {seen[3]}:"))
    busy = any(word in f"{seen[2]} {seen[4]}" for word in ("sleep", "chatting"))
    # Someone it remembers more of than what it is doing now.
    knows = any(seen[3] in line and f"{seen[3]} is " not in line for line in recalled)
    if knows and not busy:
        return {"reaction": "talk", "reason": f"{seen[1]} knows {seen[3]}."}
    return {"reaction": "continue", "reason": "Nothing to talk about now."}


def conversation_summary(prompt: str) -> Answer:
    between = re.search(r"^Conversation between (.+) at (.*):$", prompt, re.MULTILINE)
    assert between is not None
    news = [
        f"{who} said: {text}"
        for who, text in dialogue(prompt, re.escape(between[0]))
        if is_news(text)
    ]
    return {"summary": " ".join([f"{between[1]} had a conversation.", *news])[:1000]}


def importance(text: str) -> int:
    lowered = text.lower()
    if is_news(text) or any(word in lowered for word in _NEWS_WORDS):
        return 8
    return 1 if "sleeping" in lowered else 3


def importance_one(prompt: str) -> Answer:
    memory = re.search(r"^Memory: (.*)$", prompt, re.MULTILINE)
    return {"importance": importance(memory[1] if memory else "")}


def importance_many(prompt: str) -> Answer:
    memories = numbered(prompt.splitlines())
    return {"importance": [importance(memory) for memory in memories] or [3]}


def summary(prompt: str) -> Answer:
    identity = dict(line.split(": ", 1) for line in section(prompt, "") if ": " in line)
    said = [identity[key] for key in ("Learned traits", "Currently") if key in identity]
    return {"summary": " ".join(said or [prompt.splitlines()[0]])[:2000]}


def _wake_and_bed(prompt: str) -> tuple[int, int]:
    lifestyle = " ".join(section(prompt, "Lifestyle:"))
    wake = re.search(rf"(?:wakes?|awakes?)(?: up)? around {_CLOCK}", lifestyle)
    bed = re.search(rf"bed around {_CLOCK}", lifestyle)
    wake_at = minutes(wake[1], wake[2], wake[3]) if wake else 7 * 60
    bed_at = minutes(bed[1], bed[2], bed[3]) if bed else 23 * 60
    return wake_at, bed_at if bed_at > wake_at else 23 * 60 + 30


def day_plan(prompt: str) -> Answer:
    wake, bed = _wake_and_bed(prompt)
    items = [
        (0, wake, "sleeping"),
        (wake, 60, "waking up and getting ready for the day"),
        (wake + 60, 120, "going about the day"),
        (bed, 24 * 60 - bed, "going to bed and sleeping"),
    ]
    for line in section(prompt, r"What .+ has committed to today.*:"):
        kept = re.match(r"^(\d{2}):(\d{2})-(\d{2}):(\d{2}): (.+)$", line)
        if kept:  # at its time and place, then home
            start = int(kept[1]) * 60 + int(kept[2])
            end = int(kept[3]) * 60 + int(kept[4])
            items.append((start, max(5, end - start), kept[5]))
            items.append((end, 30, "heading back home"))
    items.sort()
    return {
        "items": [
            {"description": d, "start": hhmm(s), "duration_minutes": max(1, m)} for s, m, d in items
        ]
    }


def hourly_schedule(prompt: str) -> Answer:
    lives = re.search(r"^.+ lives in [^:]+:([^:]+):(.+)\.$", prompt, re.MULTILINE)
    home = (lives[1], lives[2]) if lives else ("", "")
    places = places_section(prompt)
    planned = []
    for line in section(prompt, "Today's plan in broad strokes:"):
        item = re.match(r"^(\d{2}):(\d{2}) \((\d+) min\): (.+)$", line)
        if item:
            planned.append((int(item[1]) * 60 + int(item[2]), item[4]))
    planned.sort()
    blocks = []
    for i, (start, description) in enumerate(planned):
        end = planned[i + 1][0] if i + 1 < len(planned) else 24 * 60
        if end <= start:
            continue
        sector, _, arena = (place_named(description, places) or ":".join(home)).partition(":")
        blocks.append(
            {
                "description": description,
                "start": hhmm(start),
                "duration_minutes": end - start,
                "sector": sector.strip(),
                "arena": arena.strip(),
            }
        )
    return {"blocks": blocks}


def decompose(prompt: str) -> Answer:
    block = re.search(r"^From \d{2}:\d{2} for (\d+) minutes (.+?) is: (.+)$", prompt, re.M)
    objects = re.search(r"which has these objects: (.*)$", prompt, re.MULTILINE)
    assert block is not None
    total, name, doing = int(block[1]), block[2], block[3]
    thing = (objects[1].split(",")[0].strip() if objects else "") or "room"
    count = min(12, max(1, -(-total // 15)))
    size = min(60, -(-total // count))
    actions = []
    for _ in range(count):
        actions.append(
            {
                "description": doing[:300],
                "duration_minutes": size,
                "object": thing,
                "emoji": "🙂",
                "triple": [name, "is", doing[:100]],
                "object_state": "in use",
            }
        )
    return {"actions": actions}


def respond_event(prompt: str) -> Answer:
    seen = re.search(r" sees: (.+) is (.+)\.$", prompt, re.MULTILINE)
    if seen is None or not any(w in seen[2] for w in ("burning", "fire", "smoking")):
        return {"respond": False, "action": "", "emoji": "", "state_after": ""}
    return {
        "respond": True,
        "action": f"putting out the fire at the {seen[1]}",
        "emoji": "🧯",
        "state_after": "idle",
    }


def interview(prompt: str) -> Answer:
    memories = numbered(section(prompt, r"What .+ remembers that bears on the question"))
    return {"answer": (" ".join(memories[:2]) or "I don't remember anything about that.")[:2000]}


def reflection_questions(prompt: str) -> Answer:
    about = re.search(r"^Statements from the memory of (.+):$", prompt, re.MULTILINE)
    name = about[1] if about else "them"
    return {"questions": [f"What matters most to {name}?", "Who is close?", "What is ahead?"]}


def reflection_insights(prompt: str) -> Answer:
    statements = numbered(prompt.splitlines())
    insights = [
        {"insight": f"It matters that {s[:200]}", "because": [i], "importance": 5}
        for i, s in enumerate(statements[:5], start=1)
    ]
    return {"insights": insights}


# The task, by the first key of the JSON object the prompt asks for (template comments,
# which name the task, are not sent).
ANSWERS: dict[str, Callable[[str], Answer]] = {
    "line": converse_line,
    "memo": takeaways,
    "commitment": intention,
    "reaction": react,
    "items": day_plan,
    "blocks": hourly_schedule,
    "actions": decompose,
    "respond": respond_event,
    "answer": interview,
    "questions": reflection_questions,
    "insights": reflection_insights,
}


def answer(prompt: str) -> Answer:
    """The answer to a rendered prompt, from its text alone."""
    asked = re.search(r'Answer with only a JSON object[^{]*\{"(\w+)"', prompt)
    assert asked is not None, f"no JSON object asked for in: {prompt[-300:]}"
    key = asked[1]
    if key == "summary":
        if prompt.startswith("Conversation between "):
            return conversation_summary(prompt)
        if "how does " in prompt and " stand with " in prompt:
            return relationship(prompt)
        return summary(prompt)
    if key == "importance":
        return importance_many(prompt) if "[" in prompt[asked.end() :] else importance_one(prompt)
    return ANSWERS[key](prompt)
