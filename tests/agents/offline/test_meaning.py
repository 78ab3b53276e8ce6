"""agents/offline/meaning: texts judged by their nearest labelled examples' meaning."""

from __future__ import annotations

from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from agents.offline import meaning
from agents.offline.meaning import (
    ExampleSet,
    example_sets,
    judge,
    shipped_path,
    similarity,
    texts_digest,
)
from memories.embedders import PASSAGE, text_hash
from memories.embeddings import embedder_in_process
from memories.models import EmbeddingCache

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


@pytest.mark.django_db
def test_every_example_set_ships_the_vectors_its_statements_embed_to() -> None:
    """A new process judges at once: each set's vectors ship, computed from its statements
    as they are now (an edited set fails here until `manage.py stand_in_vectors` runs)."""
    embedder = embedder_in_process().name
    for examples in example_sets():
        path = shipped_path(embedder, examples.name)
        assert path.is_file(), f"{path} missing: run manage.py stand_in_vectors"
        with np.load(path) as data:
            assert str(data["digest"]) == texts_digest(examples.texts), examples.name
            shipped = data["vectors"]
        assert shipped.shape == (len(examples.texts), 384)
        sample = list(examples.texts[:: max(1, len(examples.texts) // 5)])
        fresh = embedder_in_process().embed(sample, PASSAGE)
        rows = shipped[:: max(1, len(examples.texts) // 5)]
        # The same up to the CPU's rounding (vectors made on one CPU differ from another's
        # by about 0.002 a component); an edited statement's vector is far from its old one.
        cosines = (rows * fresh).sum(axis=1) / (
            np.linalg.norm(rows, axis=1) * np.linalg.norm(fresh, axis=1)
        )
        assert cosines.min() > 0.9995, examples.name


@pytest.mark.django_db
def test_a_set_edited_after_its_vectors_shipped_is_embedded_again() -> None:
    """Vectors of other statements are never used for a set, shipped or held by the
    process: the statements must match."""
    shipped = next(examples for examples in example_sets() if examples.name == "importance")
    judge(["Bramwell fractured his ankle on the quay."], shipped)
    edited = ExampleSet(
        name="importance",
        texts=("Quillon sold the last of the orchard's pears.", "Vessa broke her wrist."),
        labels=("3", "8"),
    )
    found = judge(["Bramwell fractured his ankle on the quay."], edited, k=1)
    assert found[0].label == "8"


@pytest.mark.django_db
def test_the_vectors_command_checks_the_shipped_vectors_are_current() -> None:
    out = StringIO()
    call_command("stand_in_vectors", "--check", stdout=out)
    assert "current" in out.getvalue()


@pytest.mark.django_db
def test_a_new_process_judges_with_the_shipped_vectors_and_embeds_no_example() -> None:
    """As a fresh worker does (the process's memo empty): a judgment by a shipped set
    embeds only the text judged, none of the set's statements (no cache row for them)."""
    meaning._example_vectors.clear()  # what a new process starts with
    sociable = next(examples for examples in example_sets() if examples.name == "sociable")
    found = judge(["Perrin Voss is the loudest voice at every harvest supper."], sociable)
    assert found[0].label in sociable.label_names
    hashes = [text_hash(text) for text in sociable.texts]
    model = embedder_in_process().name
    assert not EmbeddingCache.objects.filter(model=model, text_hash__in=hashes).exists()
