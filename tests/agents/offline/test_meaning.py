"""agents/offline/meaning: texts judged by their nearest labelled examples' meaning."""

from __future__ import annotations

import pytest

from agents.offline.meaning import ExampleSet, judge, similarity

# Made up here: two kinds of statement, in words the texts judged below do not share.
WEATHER = (
    "A violent gale is expected to hit the coast tonight.",
    "Heavy snow has closed the mountain pass until spring.",
    "The river burst its banks after three days of rain.",
)
MEALS = (
    "Ate a bowl of porridge with honey for breakfast.",
    "Had a ham sandwich at the desk for lunch.",
    "Cooked lentil soup for supper.",
)
KINDS = ExampleSet(
    name="test-kinds",
    texts=WEATHER + MEALS,
    labels=("weather",) * len(WEATHER) + ("meal",) * len(MEALS),
)


@pytest.mark.django_db
def test_a_text_takes_the_label_of_the_examples_nearest_in_meaning() -> None:
    found = judge(
        [
            "Fishermen were warned that a storm will reach Kelport harbour before dawn.",
            "Oswin nibbled some toast and jam before leaving for the mill.",
        ],
        KINDS,
        k=3,
    )
    assert [j.label for j in found] == ["weather", "meal"]
    assert all(0 < j.score <= 1 and j.scores[j.label] == j.score for j in found)


@pytest.mark.django_db
def test_judgments_are_deterministic_and_numeric_labels_average() -> None:
    graded = ExampleSet(
        name="test-graded",
        texts=("Her father died last night.", "Brushed my teeth."),
        labels=("10", "1"),
    )
    once = judge(["Grandpa Tobiah passed away this morning."], graded, k=2)
    again = judge(["Grandpa Tobiah passed away this morning."], graded, k=2)
    assert once == again
    assert 5.5 < once[0].number() <= 10


@pytest.mark.django_db
def test_similarity_is_a_matrix_of_cosines() -> None:
    matrix = similarity(["a gale on the coast"], [WEATHER[0], MEALS[0]])
    assert matrix.shape == (1, 2)
    assert matrix[0, 0] > matrix[0, 1]
