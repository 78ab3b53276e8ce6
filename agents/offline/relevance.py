"""How well a memory answers a question, for the offline interview: the paper's relevance
(the cosine of the question's embedding, as a retrieval query, and the memory's), read
against how well statements in general fit the question and questions in general fit the
memory.

A small embedding model gives every pair of English texts a cosine between about 0.7 and
0.9: a vague question ("anything new?") fits every memory a little, and a memory that is
long or about the resident's day fits every question a little. So a memory's `lift` is its
cosine less the question's mean cosine to many kinds of statement (`examples/statements`)
and less the memory's mean cosine to many kinds of question
(`examples/interview_questions`), plus the mean of those two sets to each other, in
standard deviations of the question's cosines to the statements. A memory that answers
the question stands out of both; nothing in it reads a word. The vectors are the memory
stream's (cached by text), so a memory costs no new embedding; the sets' are made once
per process.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.offline.meaning import Judgment, example_set, judge, vectors
from memories.embeddings import Vectors, embed_query, embedder_in_process

QUESTIONS = "interview_questions"  # kinds of question: news, fact, plan, self
STATEMENTS = "statements"  # kinds of statement: news, everyday


@dataclass(frozen=True)
class Fit:
    """How well one memory answers a question."""

    cosine: float  # the paper's relevance
    lift: float  # how far it stands out (see the module's docstring)


@dataclass(frozen=True)
class _Calibration:
    questions: Vectors  # the example questions, as queries
    statements: Vectors  # the example statements, as passages
    between: float  # their mean cosine


_lock = threading.Lock()
_calibrations: dict[str, _Calibration] = {}


def query_vectors(texts: Sequence[str]) -> Vectors:
    """The retrieval query vectors of `texts` (cached by text, as retrieval's are)."""
    return np.stack([embed_query(text=text, in_process=True) for text in texts])


def _calibration() -> _Calibration:
    key = embedder_in_process().name
    with _lock:
        found = _calibrations.get(key)
    if found is None:
        questions = query_vectors(example_set(QUESTIONS).texts)
        statements = vectors(example_set(STATEMENTS).texts)
        found = _Calibration(questions, statements, float((questions @ statements.T).mean()))
        with _lock:
            _calibrations[key] = found
    return found


def fits(question: str, texts: Sequence[str]) -> list[Fit]:
    """How well each of `texts` answers `question` (see the module's docstring)."""
    if not texts:
        return []
    known = _calibration()
    asked = embed_query(text=question, in_process=True)
    found = vectors(texts)
    cosines = found @ asked
    general = known.statements @ asked  # the question against statements in general
    spread = max(float(general.std()), 1e-6)
    usual = (found @ known.questions.T).mean(axis=1)  # each memory against questions
    lifts = (cosines - float(general.mean()) - usual + known.between) / spread
    return [Fit(float(c), float(lift)) for c, lift in zip(cosines, lifts, strict=True)]


def question_kind(question: str) -> Judgment:
    """What kind of question it is: "news", "fact", "plan" or "self"."""
    return judge([question], example_set(QUESTIONS))[0]


def newsworthy(texts: Sequence[str]) -> list[bool]:
    """Whether each text is news (a happening, a change, a warning) rather than an
    everyday doing, an object's state or a resident's own habit."""
    return [j.label == "news" for j in judge(texts, example_set(STATEMENTS))]
