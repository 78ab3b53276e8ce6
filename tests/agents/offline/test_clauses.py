"""agents/offline/clauses: an identity's clauses, each with its times and its role judged
by meaning, in phrasings and names made up here."""

from __future__ import annotations

import pytest

from agents.offline.clauses import clauses_of


def _roles(text: str, name: str) -> list[tuple[str, list[tuple[int | None, int | None]]]]:
    return [(c.role, [(w.start, w.end) for w in c.times]) for c in clauses_of([text], name=name)]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "name", "minute"),
    [
        ("Mornings start at 5:00 am for Tegen.", "Tegen Vosper", 5 * 60),
        ("For Quenby the day starts at 4.30.", "Quenby Stroud", 4 * 60 + 30),
    ],
)
def test_a_morning_said_as_the_subject_is_the_waking(text: str, name: str, minute: int) -> None:
    """The part of the day that opens the clause stays in what is judged: "mornings
    start" is a waking, where "start" alone reads as the start of work."""
    roles = _roles(text, name)
    assert [role for role, _ in roles] == ["wake"], roles
    assert any(start == minute for start, _ in roles[0][1]), roles


@pytest.mark.django_db
def test_times_that_open_a_sentence_belong_to_the_clause_after_them() -> None:
    roles = _roles("Nights, 11pm to 7 a.m., Bryok is at the signal box.", "Bryok Hale")
    assert len(roles) == 1, roles
    assert (23 * 60, 7 * 60) in roles[0][1], roles


@pytest.mark.django_db
def test_a_sentence_does_not_end_at_the_dot_of_pm() -> None:
    """ "2 p.m. to ten at night" is one range; "7 a.m. She ..." still parts two sentences."""
    assert _roles("Massen's hours are 2 p.m. to ten at night.", "Massen Kitto") == [
        ("work", [(14 * 60, 22 * 60)])
    ]
    roles = _roles("Tamsin is up at 7 a.m. She mends nets at the quay from 9 to 5.", "Tamsin")
    assert [role for role, _ in roles] == ["wake", "work"], roles
