"""Offline conversations and interviews: news passed on in the first person. No database."""

from __future__ import annotations

import random

from agents.cognition.offline_talk import (
    conversation_summary,
    converse_line,
    first_person,
    interview_answer,
    react,
)

ISABELLA, KLAUS = "Isabella Rodriguez", "Klaus Mueller"
PARTY = "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe on February 14th"
INVITE = "Isabella Rodriguez wants to invite Klaus to the party"
GREETING = f"{ISABELLA}: Hi Klaus, good to see you! How are you?"


def _line(memories: list[str], dialogue: list[str]) -> tuple[str, bool]:
    inputs = {
        "speaker": ISABELLA,
        "listener": KLAUS,
        "dialogue": dialogue,
        "memories": [f"{i}. {m}" for i, m in enumerate(memories, 1)],
    }
    return converse_line(inputs, random.Random(1))


def test_a_conversation_opens_with_a_greeting() -> None:
    assert _line([PARTY], []) == ("Hi Klaus, good to see you! How are you?", False)


def test_a_host_invites_the_listener_she_means_to_invite_once() -> None:
    dialogue = [GREETING, f"{KLAUS}: Fine, thanks."]
    text, end = _line([PARTY, INVITE], dialogue)
    assert text == (
        "By the way, Klaus, you are invited to my party! I am planning a Valentine's Day "
        "party at Hobbs Cafe on February 14th."
    )
    assert not end
    again, _ = _line([PARTY, INVITE], [*dialogue, f"{ISABELLA}: {text}", f"{KLAUS}: Great!"])
    assert "invited" not in again


def test_news_is_passed_on_in_the_first_person_and_not_twice() -> None:
    dialogue = [f"{KLAUS}: Hi Isabella, how are you?"]
    text, end = _line([PARTY], dialogue)
    assert text == (
        "I'm well, thanks! By the way, I am planning a Valentine's Day party at Hobbs Cafe "
        "on February 14th."
    )
    assert not end
    text, end = _line([PARTY], [*dialogue, f"{ISABELLA}: {text}", f"{KLAUS}: Nice."])
    assert (text, end) == ("It was nice talking to you, Klaus. See you around!", True)


def test_more_news_follows_with_oh_and() -> None:
    text, _ = _line([PARTY], [GREETING, f"{KLAUS}: Fine, thanks."])
    assert text.startswith("Oh, and I am planning a Valentine's Day party")


def test_hearsay_is_not_passed_on() -> None:
    hearsay = "Isabella Rodriguez and Tom Moreno had a conversation. Tom said: the election"
    text, end = _line([hearsay], [GREETING, f"{KLAUS}: Fine."])
    assert end and "election" not in text


def test_first_person_turns_the_speakers_name_and_you_around() -> None:
    assert first_person("Isabella Rodriguez is hosting; you are invited.", ISABELLA) == (
        "I am hosting; I am invited"
    )
    assert first_person("You have a dog named Max.", ISABELLA) == "I have a dog named Max"


def test_an_interview_answer_is_the_two_most_relevant_memories_in_the_first_person() -> None:
    inputs = {
        "agent_name": ISABELLA,
        "memories": [f"1. {PARTY}", "2. You like coffee a lot", "3. Isabella Rodriguez sleeps"],
    }
    assert interview_answer(inputs) == (
        "I am planning a Valentine's Day party at Hobbs Cafe on February 14th. I like coffee a lot."
    )


def test_an_interview_about_nothing_remembered_says_so() -> None:
    answer = interview_answer({"agent_name": ISABELLA, "memories": []})
    assert answer == "I'm not sure; I don't remember anything about that."


def test_nobody_starts_talking_to_a_sleeper_or_someone_in_a_conversation() -> None:
    for mine, theirs in (("sleeping", "idle"), ("idle", "chatting with Tom Moreno")):
        inputs = {
            "action": mine,
            "observed_action": theirs,
            "observed_name": KLAUS,
            "context": [f"Isabella knows {KLAUS} well"],
        }
        assert all(react(inputs, random.Random(seed)) == "continue" for seed in range(50))


def test_acquaintances_talk_more_often_than_strangers() -> None:
    def talks(context: str) -> int:
        inputs = {
            "action": "idle",
            "observed_action": "idle",
            "observed_name": KLAUS,
            "context": context,
        }
        return sum(react(inputs, random.Random(seed)) == "talk" for seed in range(400))

    assert talks(f"Isabella knows {KLAUS} well") > 3 * talks("nothing in particular")


def test_a_conversation_summary_keeps_the_news() -> None:
    inputs = {
        "participants": f"{ISABELLA} and {KLAUS}",
        "dialogue": [GREETING, f"{ISABELLA}: Oh, and I am planning a party."],
    }
    assert conversation_summary(inputs) == (
        f"{ISABELLA} and {KLAUS} had a conversation. "
        f'{ISABELLA} said: "Oh, and I am planning a party."'
    )
