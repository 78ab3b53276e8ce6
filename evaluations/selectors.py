"""Reads of evaluations: a simulation's, newest first, and one by its number."""

from __future__ import annotations

from django.db.models import QuerySet

from world.models import Simulation

from .models import Evaluation


def evaluation_list(*, simulation: Simulation) -> QuerySet[Evaluation]:
    return simulation.evaluations.order_by("-number")


def evaluation_get(*, simulation: Simulation, number: int) -> Evaluation:
    """Raises Evaluation.DoesNotExist."""
    return simulation.evaluations.get(number=number)
