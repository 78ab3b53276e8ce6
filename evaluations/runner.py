"""Running an evaluation: its emergence measures, once, into an immutable result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from world.models import Simulation

from .emergence import emergence_measure
from .models import Evaluation, EvaluationKind, EvaluationStatus
from .services import evaluation_finish, evaluation_progress, evaluation_start

# The parts of emergence_measure each kind reports.
PARTS = {
    EvaluationKind.DIFFUSION: ("party_news", "candidacy_news"),
    EvaluationKind.RELATIONSHIPS: ("network_density",),
    EvaluationKind.COORDINATION: ("party",),
}
NOT_BUILT = (EvaluationKind.INTERVIEWS, EvaluationKind.HALLUCINATION)


def _emergence(simulation: Simulation, kinds: list[str]) -> dict[str, Any]:
    measured = emergence_measure(simulation=simulation)
    return {part: measured[part] for k in kinds for part in PARTS.get(EvaluationKind(k), ())}


def evaluation_run(
    *, evaluation: Evaluation, progress: Callable[[int, int], None] | None = None
) -> Evaluation:
    """Compute the evaluation's kinds and finish it; a done one is returned unchanged.

    The measures read the memory stream and the log as they are now (not cut at the
    evaluation's step); interviews and hallucination are named in the result as not run.
    """
    if evaluation.status == EvaluationStatus.DONE:
        return evaluation
    simulations = [evaluation.simulation, *evaluation.compared.order_by("pk")]
    evaluation_start(evaluation=evaluation, total=len(simulations))
    result: dict[str, Any] = {
        "backend_note": "emergence measures read the memory stream and the event log; "
        "with the offline backend they show mechanics, not what a model would do",
        "simulations": {},
        "not_run": sorted(k for k in evaluation.kinds if k in NOT_BUILT),
    }
    for done, simulation in enumerate(simulations, 1):
        result["simulations"][str(simulation.pk)] = _emergence(simulation, evaluation.kinds)
        evaluation_progress(evaluation=evaluation, done=done)
        if progress is not None:
            progress(done, len(simulations))
    evaluation_finish(evaluation=evaluation, result=result)
    evaluation.refresh_from_db()
    return evaluation
