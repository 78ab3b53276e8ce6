"""Offline conversations and interviews: news passed on in the first person (what is news is
judged by meaning, with the embeddings cached in the database)."""

from __future__ import annotations

import random

import pytest

from agents.offline.interview import interview_answer
from agents.offline.news import host_of, mid_sentence, third_person
from agents.offline.talk import (
    conversation_summary,
    converse_line,
    first_person,
    react,
)

pytestmark = pytest.mark.django_db

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


def test_a_conversation_summary_keeps_the_news_without_the_small_talk_before_it() -> None:
    first, second = "Wenna Trask", "Odo Pellan"
    inputs = {
        "participants": f"{first} and {second}",
        "dialogue": [
            f"{first}: Hi Odo, good to see you! How are you?",
            f"{second}: I'm well, thanks! By the way, the ferry to Skarn is cancelled.",
            f"{first}: Oh, and I am mending the seawall on Friday.",
            f"{second}: It was nice talking to you, Wenna. See you around!",
        ],
    }
    assert conversation_summary(inputs) == (
        f"{first} and {second} had a conversation. "
        f'{second} said: "The ferry to Skarn is cancelled."; '
        f'{first} said: "I am mending the seawall on Friday."'
    )


SAM = "Sam Moore"


@pytest.mark.parametrize(
    ("statement", "spoken"),
    [
        (
            "Sam Moore associates local politics with the election",
            "I associate local politics with the election",
        ),
        ("Sam Moore watches the news every night", "I watch the news every night"),
        ("Sam Moore goes to Johnson Park", "I go to Johnson Park"),
        ("Sam Moore has a dog and does the dishes", "I have a dog and do the dishes"),
        ("Sam Moore is tired", "I am tired"),
        ("Sam Moore was a navy officer", "I was a navy officer"),
        ("Sam Moore studies history", "I study history"),
        (
            "Sam Moore often comes across Jennifer Moore in connection with the election",
            "I often come across Jennifer Moore in connection with the election",
        ),
        (
            "Jennifer Moore is a regular presence in Sam Moore's life",
            "Jennifer Moore is a regular presence in my life",
        ),
        ("Sam Moore's garden is lovely", "My garden is lovely"),
        ("For Sam Moore, local and election go together", "For me, local and election go together"),
        ("Tom Moreno does not like Sam Moore", "Tom Moreno does not like me"),
        ("Tom thinks Sam Moore is too old", "Tom thinks I am too old"),
        (
            "Sam Moore and Jennifer Moore had a conversation",
            "Jennifer Moore and I had a conversation",
        ),
        (
            "Sam is running for mayor and he is telling his neighbors about it",
            "I am running for mayor and I am telling my neighbors about it",
        ),
        (
            "Sam Moore lives with his wife of 40 years, Jennifer Moore, and spends his free time "
            "in the park",
            "I live with my wife of 40 years, Jennifer Moore, and spend my free time in the park",
        ),
        # Not safe: "he" may be Tom, so it stays.
        ("Sam Moore met Tom Moreno and he was upset", "I met Tom Moreno and he was upset"),
        (
            "You've known your neighbor, Yuriko Yamamoto, for years and you two chat",
            "I've known my neighbor, Yuriko Yamamoto, for years and we chat",
        ),
        (
            "You know of Tamara Taylor but you haven't really chatted with her",
            "I know of Tamara Taylor but I haven't really chatted with her",
        ),
        ("You are really curious about the election", "I am really curious about the election"),
        ("Tom likes you", "Tom likes me"),
    ],
)
def test_first_person_is_correct_english(statement: str, spoken: str) -> None:
    assert first_person(statement, SAM) == spoken


def test_a_line_never_passes_on_what_someone_was_seen_doing() -> None:
    seen = [
        "John Lin is tidying up",
        "Mei Lin is waiting to use the bed",
        "bed is in use",
        "Eddy Lin is chatting with Mei Lin",
        "Isabella Rodriguez is reading a book",
    ]
    for dialogue in ([f"{KLAUS}: Hi Isabella, how are you?"], [GREETING, f"{KLAUS}: Fine."]):
        text, _ = _line(seen, dialogue)
        assert not any(s.split(" is ")[1] in text for s in seen), text
        assert "By the way" not in text and "Oh, and" not in text
        assert text.endswith((".", "!")), text


def test_what_matters_most_is_told_first() -> None:
    text, _ = _line(["You like coffee a lot", "John Lin is tidying up", PARTY], [GREETING, "K: Hi"])
    assert text.startswith("Oh, and I am planning a Valentine's Day party")


def test_news_is_not_told_back_to_the_one_who_told_it() -> None:
    told = f"{KLAUS}: Oh, and I am planning a Valentine's Day party at Hobbs Cafe on February 14th."
    text, _ = _line([PARTY], [f"{KLAUS}: Hi Isabella!", told])
    assert "party" not in text


def test_with_nothing_to_tell_the_speaker_talks_about_its_own_day() -> None:
    answer, end = _line([], [f"{KLAUS}: Hi Isabella, how are you?"])
    assert answer.startswith("I'm well, thanks! ") and not end
    plan = (
        f"This is {ISABELLA}'s plan for Monday February 13: 00:00 sleeping; 06:00 waking up; "
        "08:00 working at Hobbs Cafe; 20:00 relaxing at home"
    )
    inputs = {
        "speaker": ISABELLA,
        "listener": KLAUS,
        "time": "07:40",
        "dialogue": [GREETING, f"{KLAUS}: Fine, thanks."],
        "memories": [f"1. {plan}"],
    }
    text, end = converse_line(inputs, random.Random(1))
    assert text == (
        "Later today I'll be working at Hobbs Cafe, from 08:00. "
        "It was nice talking to you, Klaus. See you around!"
    )
    assert end


def test_an_interview_answer_tells_of_a_conversation_without_quoting_it() -> None:
    invited = (
        f'{ISABELLA} and {KLAUS} had a conversation. {ISABELLA} said: "By the way, Klaus, you '
        f'are invited to my party! I am planning a party."; {KLAUS} said: "Oh, and I like it."'
    )
    paper = f'{KLAUS} and {ISABELLA} had a conversation. {ISABELLA} said: "Hi Klaus!"; {KLAUS} '
    paper += 'said: "I\'m well, thanks! By the way, I am writing a research paper."'
    asked = f'a news reporter asked {KLAUS}: "Why?" {KLAUS} said: "Because."'
    others = f'{ISABELLA} and Maria Lopez had a conversation. Maria Lopez said: "Oh, and I study."'
    memories = [invited, asked, others, paper]
    inputs = {"agent_name": KLAUS, "memories": [f"{i}. {m}" for i, m in enumerate(memories, 1)]}
    assert interview_answer(inputs) == (
        "I talked with Isabella Rodriguez, who told me that I am invited to Isabella's party! "
        "Isabella is planning a party. I talked with Isabella Rodriguez."
    )
    answer = interview_answer({"agent_name": ISABELLA, "memories": [f"1. {paper}"]})
    assert answer == "I talked with Klaus Mueller, who is writing a research paper."


def test_news_about_others_comes_before_what_the_listener_knows_of_itself() -> None:
    about_klaus = "Klaus Mueller is writing a research paper on gentrification"
    text, _ = _line([about_klaus, PARTY], [GREETING, f"{KLAUS}: Fine."])
    assert "party" in text


def test_the_listener_is_not_told_its_own_doings() -> None:
    text, _ = _line([f"{KLAUS} is writing a research paper"], [GREETING, f"{KLAUS}: Fine."])
    assert "research" not in text


def test_first_person_puts_the_speaker_last_in_a_pair() -> None:
    assert first_person("You and Maria Lopez are close friends", ISABELLA) == (
        "Maria Lopez and I are close friends"
    )


def test_those_who_talked_already_today_rarely_talk_again() -> None:
    def talks(context: list[str]) -> int:
        inputs = {
            "action": "idle",
            "observed_action": "idle",
            "observed_name": KLAUS,
            "context": context,
        }
        return sum(react(inputs, random.Random(seed)) == "talk" for seed in range(400))

    knows = [f"Isabella knows {KLAUS} well"]
    talked = [*knows, f"{ISABELLA} and {KLAUS} had a conversation. Hi."]
    assert 2 * talks(talked) < talks(knows)


@pytest.mark.parametrize(
    ("said", "told"),
    [
        ("I told Klaus about the party", "Maria told Klaus about the party"),
        ("I associates local with election", "Maria associates local with election"),
        ("I watch the news", "Maria watches the news"),
        ("I study chemistry", "Maria studies chemistry"),
        ("I planned a walk", "Maria planned a walk"),
        ("I have a paper due", "Maria has a paper due"),
        ("I haven't had the courage to ask", "Maria hasn't had the courage to ask"),
        ("I really don't know", "Maria really doesn't know"),
        ("I can't swim and I didn't try", "Maria can't swim and Maria didn't try"),
        ("I'd like to come", "Maria would like to come"),
    ],
)
def test_a_retold_line_keeps_its_verbs_grammatical(said: str, told: str) -> None:
    """Hearsay in the speaker's words, retold after its name: no "tolds", no
    "associateses" (the offline lines must read as whole, plain sentences)."""
    assert third_person(said, "Maria") == told


@pytest.mark.parametrize(
    ("fact", "what", "host"),
    [
        ("Ada Byrne is planning a quiz night at the Anchor on May 3", "quiz night", "Ada Byrne"),
        ("Ada Byrne is excited to be hosting a harvest supper", "harvest supper", "Ada Byrne"),
        ("Ada Byrne is hosting a Midsummer's Eve dance", "dance", "Ada Byrne"),
        ("Cato Wren will go to Ada Byrne's quiz night at the Anchor", "quiz night", "Ada Byrne"),
        ("Cato Wren will go to a quiz night at the Anchor", "quiz night", ""),
        ("Cato Wren is going to the quiz night", "quiz night", ""),
        # hearsay of hearsay: the host is the name right before the verb
        ("Ida Moss heard that Oren Pike is planning a kite day", "kite day", "Oren Pike"),
        (
            "Bea Lund said that Tomas Oyelaran is hosting a poetry slam",
            "poetry slam",
            "Tomas Oyelaran",
        ),
        ("the old ferryman is organising a regatta on Sunday", "regatta", "the old ferryman"),
    ],
)
def test_a_retold_plan_names_the_host_not_a_guest(fact: str, what: str, host: str) -> None:
    """A guest who says it will go is not the host: "I will go to Cato Wren's quiz night"
    from "Cato Wren will go to Ada Byrne's quiz night" made a second, false host."""
    assert host_of(fact, what) == host


@pytest.mark.parametrize(
    ("fact", "after"),
    [
        ("Odile Brask is hosting a lantern walk", "Odile Brask is hosting a lantern walk"),
        ("I am baking for the fair", "I am baking for the fair"),
        ("The ferry stops at noon", "the ferry stops at noon"),
        ("There is a quiz at the mill", "there is a quiz at the mill"),
    ],
)
def test_news_told_mid_sentence_keeps_a_names_capital(fact: str, after: str) -> None:
    """ "I heard that Odile Brask ...", never "I heard that odile Brask ..."."""
    assert mid_sentence(fact) == after


# What residents of made-up towns say they are about now (their summary's "currently"),
# with what each should mention of it; and summaries that hold no news of their own.
ABOUT_NOW = [
    (
        "Oona Vetch",
        "Oona Vetch is 41 years old. Oona Vetch is patient, wry. Oona Vetch is organising a "
        "kite festival on the Skerrow dunes on Saturday from noon.",
        "kite festival",
    ),
    (
        "Bram Ilfrey",
        "Bram Ilfrey is 63 years old. Bram is holding an auction of his old boats at the "
        "slipway next Saturday at ten.",
        "auction",
    ),
    (
        "Sefa Ondine",
        "Sefa Ondine is 29 years old. Sefa Ondine is reopening the old ferry inn at "
        "Carrow Quay on Friday evening, with music till late.",
        "ferry inn",
    ),
]
QUIET = [
    (
        "Ilse Marrak",
        "Ilse Marrak is 35 years old. Ilse Marrak is kind, tidy. Ilse Marrak "
        "likes weaving in the evenings.",
    ),
    ("Tobin Werry", "Tobin Werry is 52 years old. Tobin Werry is quiet and reads a lot."),
    ("Ansel Brode", "Ansel Brode is 44 years old. Ansel Brode is saving for a new lathe."),
]


def _said_to(speaker: str, summary: str, memories: list[str]) -> str:
    listener = "Pell Oakhurst"
    inputs = {
        "speaker": speaker,
        "listener": listener,
        "summary": summary,
        "dialogue": [f"{listener}: Hi {speaker.split()[0]}, how are you?"],
        "memories": [f"{i}. {m}" for i, m in enumerate(memories, 1)],
    }
    return converse_line(inputs, random.Random(1))[0]


@pytest.mark.parametrize(("speaker", "summary", "what"), ABOUT_NOW)
def test_a_speaker_mentions_what_its_summary_says_it_is_about_now(
    speaker: str, summary: str, what: str
) -> None:
    """As the paper's prompt shows the speaker's identity: a happening of its own is told
    when its memories hold nothing newer, and heard news before it."""
    acquaintance = f"{speaker} and Wenna Colley have known each other for a few years"
    line = _said_to(speaker, summary, [acquaintance])
    assert what in line and speaker not in line, line
    heard = "The bridge at Lynmouth Ford is closed for repairs until March (Wenna Colley told me)."
    assert "bridge" in _said_to(speaker, summary, [heard, acquaintance])


@pytest.mark.parametrize(("speaker", "summary"), QUIET)
def test_a_summary_with_no_news_of_its_own_adds_nothing_to_say(speaker: str, summary: str) -> None:
    line = _said_to(speaker, summary, [])
    assert line.startswith("I'm well, thanks!") and "years old" not in line, line


@pytest.mark.parametrize(("speaker", "summary", "what"), ABOUT_NOW)
def test_an_invitation_names_the_happening_its_summary_says_it_hosts(
    speaker: str, summary: str, what: str
) -> None:
    """The host whose memories in the prompt hold only its wish to invite (its one most
    important thought) invites to the happening its summary says it is about."""
    wish = f"{speaker.split()[0]} wants to invite Pell Oakhurst"
    line = _said_to(speaker, summary, [wish])
    assert line.startswith("By the way, Pell, you are invited") and what in line, line


@pytest.mark.parametrize(("speaker", "summary", "what"), ABOUT_NOW)
def test_an_invitation_is_never_to_a_conversation_the_host_remembers(
    speaker: str, summary: str, what: str
) -> None:
    """A record of talk is no happening, whatever news it holds: "you are invited to my
    conversation!" came from the host's memory of talking about the happening."""
    wish = f"{speaker.split()[0]} wants to invite Pell Oakhurst"
    talk = (
        f'{speaker} and Wenna Colley had a conversation. Wenna Colley said: "I will go to '
        f"{speaker}'s {what} on Saturday at the dunes, a grand celebration.\""
    )
    line = _said_to(speaker, summary, [wish, talk])
    assert line.startswith("By the way, Pell, you are invited") and "conversation" not in line
    assert what in line, line
