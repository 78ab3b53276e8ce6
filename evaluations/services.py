"""Writes of evaluations: creating one, recording its units once each, finishing it."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone

from world.models import Agent, Simulation

from .conditions import Condition
from .models import Evaluation, EvaluationKind, EvaluationStatus, InterviewAnswer

HUMAN = "human"


class EvaluationError(ValueError):
    """A request for an evaluation that cannot be made; the message says why."""


def evaluation_create(
    *,
    simulation: Simulation,
    kinds: Sequence[str],
    step: int | None = None,
    conditions: Sequence[str] = tuple(Condition.values),
    facts: Sequence[str] = (),
    compared: Sequence[Simulation] = (),
) -> Evaluation:
    """A pending evaluation of `simulation` at `step` (default: its current step).

    Raises EvaluationError, writing nothing, for an unknown kind or condition or a step
    the simulation has not reached.
    """
    unknown = [k for k in kinds if k not in EvaluationKind.values]
    if unknown or not kinds:
        raise EvaluationError(f"unknown kinds {unknown}; known: {EvaluationKind.values}")
    known_conditions = [*Condition.values, HUMAN]
    unknown = [c for c in conditions if c not in known_conditions]
    if unknown:
        raise EvaluationError(f"unknown conditions {unknown}; known: {known_conditions}")
    at = simulation.step if step is None else step
    if not 0 <= at <= simulation.step:
        raise EvaluationError(f"step {at} is beyond the simulation's step {simulation.step}")
    for _attempt in range(3):  # two requests may take the same number; the constraint says
        try:
            with transaction.atomic():
                last = simulation.evaluations.aggregate(n=Max("number"))["n"] or 0
                evaluation = Evaluation.objects.create(
                    simulation=simulation,
                    number=last + 1,
                    step=at,
                    kinds=list(kinds),
                    conditions=list(conditions),
                    facts=list(facts),
                )
                evaluation.compared.set(compared)
                return evaluation
        except IntegrityError:
            continue
    raise EvaluationError("could not number the evaluation; try again")


def answer_record(
    *,
    evaluation: Evaluation,
    agent: Agent,
    category: str,
    question_number: int,
    question: str,
    condition: str,
    answer: str,
    memories: Sequence[int],
) -> bool:
    """Record one unit once: False when it was already there (a re-run after a killed
    worker), and the progress counts it only the first time."""
    with transaction.atomic():
        _row, created = InterviewAnswer.objects.get_or_create(
            evaluation=evaluation,
            agent=agent,
            question_number=question_number,
            condition=condition,
            defaults={
                "category": category,
                "question": question,
                "answer": answer,
                "memories": list(memories),
            },
        )
        if created:
            Evaluation.objects.filter(pk=evaluation.pk, done__lt=F("total")).update(
                done=F("done") + 1
            )
    return created


def evaluation_start(*, evaluation: Evaluation, total: int) -> bool:
    """Pending -> running with `total` units; False when another worker already started it."""
    started = Evaluation.objects.filter(pk=evaluation.pk, status=EvaluationStatus.PENDING).update(
        status=EvaluationStatus.RUNNING, total=total
    )
    return started == 1


def evaluation_progress(*, evaluation: Evaluation, done: int) -> None:
    """Raise the count of units done to `done` (never lower it: a re-run repeats units)."""
    Evaluation.objects.filter(
        pk=evaluation.pk, status=EvaluationStatus.RUNNING, done__lt=done, total__gte=done
    ).update(done=done)


def evaluation_finish(*, evaluation: Evaluation, result: dict[str, object]) -> bool:
    """Running -> done with its result, once; a done evaluation never changes again."""
    finished = Evaluation.objects.filter(pk=evaluation.pk, status=EvaluationStatus.RUNNING).update(
        status=EvaluationStatus.DONE, result=result, finished_at=timezone.now()
    )
    return finished == 1
