"""The test database between tests (tests/database.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType

from tests.database import rows_flush, shipped_rows_put_back
from world.models import Base, Location, Town
from world.towns import town_get_or_import


@pytest.mark.django_db(transaction=True)
def test_a_flush_between_modules_keeps_ids_going_so_no_cached_id_is_taken_again() -> None:
    """In-process caches key towns, arenas and residents by id: a module's flush that
    started the sequences again would give a later test's rows the ids of rows another
    test cached (a parallel worker runs modules in any order)."""
    first_user = User.objects.create_user(username="marisol-quay")
    first_town = town_get_or_import()
    rows_flush()
    assert not User.objects.exists()
    second_user = User.objects.create_user(username="tobiah-fenwick")
    second_town = town_get_or_import()
    assert second_user.pk > first_user.pk
    assert second_town.pk > first_town.pk


@pytest.mark.django_db(transaction=True)
def test_the_shipped_rows_come_back_after_a_flush_as_migrate_left_them() -> None:
    """Every test after a flush finds the shipped towns and bases, put back from a copy
    with their ids (in-process caches key a town by its id), not imported again; the
    flush keeps the content types as they were."""
    towns = list(Town.objects.filter(owner__isnull=True).values_list("pk", "name").order_by("pk"))
    places = Location.objects.filter(town__owner__isnull=True).count()
    bases = sorted(Base.objects.values_list("pk", "name"))
    kinds = sorted(ContentType.objects.values_list("pk", "model"))
    assert towns and places and bases
    rows_flush()
    assert sorted(ContentType.objects.values_list("pk", "model")) == kinds  # kept, ids too
    assert not Town.objects.exists() and not Base.objects.exists()
    shipped_rows_put_back()
    assert list(Town.objects.values_list("pk", "name").order_by("pk")) == towns
    assert Location.objects.count() == places
    assert sorted(Base.objects.values_list("pk", "name")) == bases
