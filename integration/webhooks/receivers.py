"""What webhooks do when a run ends or an evaluation ends: the signals of the layers below
(world.signals, evaluations.signals), connected in IntegrationConfig.ready. Each makes its
deliveries in the sender's transaction. (Log events are read by logfeed.py, off the
engine's path.)"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import transaction

from evaluations.models import Evaluation
from evaluations.signals import evaluation_ended
from world.models import Simulation
from world.signals import run_ended

from .models import WebhookEvent
from .services import webhooks_notify

log = logging.getLogger(__name__)

RUN_EVENTS = {
    "finished": WebhookEvent.RUN_FINISHED,
    "failed": WebhookEvent.RUN_FAILED,
    "budget_exhausted": WebhookEvent.RUN_BUDGET_EXHAUSTED,
}
EVALUATION_EVENTS = {"done": WebhookEvent.EVALUATION_DONE, "failed": WebhookEvent.EVALUATION_FAILED}


def simulation_data(simulation: Simulation) -> dict[str, Any]:
    return {
        "id": simulation.pk,
        "name": simulation.name,
        "status": simulation.status,
        "reason": simulation.status_reason,
        "step": simulation.step,
        "target_step": simulation.target_step,
        "sim_time": simulation.sim_time.isoformat(),
    }


@contextmanager
def _apart(what: str) -> Iterator[None]:
    """A webhook that cannot be made must not fail the run or evaluation that caused it:
    its writes in a savepoint, a failure logged."""
    try:
        with transaction.atomic():
            yield
    except Exception:
        log.exception("webhook deliveries of %s not made", what)


def on_run_ended(*, simulation: Simulation, outcome: str, **_: Any) -> None:
    with _apart(f"simulation {simulation.pk}"):
        fresh = Simulation.objects.get(pk=simulation.pk)
        webhooks_notify(
            user_id=fresh.owner_id,
            simulation_id=fresh.pk,
            event=RUN_EVENTS[outcome],
            data={"simulation": simulation_data(fresh)},
        )


def on_evaluation_ended(*, evaluation: Evaluation, outcome: str, **_: Any) -> None:
    with _apart(f"evaluation {evaluation.pk}"):
        _evaluation_notify(evaluation, outcome)


def _evaluation_notify(evaluation: Evaluation, outcome: str) -> None:
    simulation = evaluation.simulation
    webhooks_notify(
        user_id=simulation.owner_id,
        simulation_id=simulation.pk,
        event=EVALUATION_EVENTS[outcome],
        data={
            "evaluation": {
                "id": evaluation.pk,
                "number": evaluation.number,
                "simulation": simulation.pk,
                "step": evaluation.step,
                "kinds": evaluation.kinds,
                "status": evaluation.status,
                "error": evaluation.result.get("error", "") if outcome == "failed" else "",
                "finished_at": evaluation.finished_at,
            }
        },
    )


def receivers_connect() -> None:
    run_ended.connect(on_run_ended, dispatch_uid="webhooks.run_ended")
    evaluation_ended.connect(on_evaluation_ended, dispatch_uid="webhooks.evaluation_ended")
