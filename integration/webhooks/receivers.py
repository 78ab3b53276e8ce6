"""What webhooks do when a run ends, an evaluation ends or a live log grows: the signals
of the layers below (world.signals, evaluations.signals), connected in
IntegrationConfig.ready. Each makes its deliveries in the sender's transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Q

from evaluations.models import Evaluation
from evaluations.signals import evaluation_ended
from world.models import Event, Simulation
from world.signals import events_appended, run_ended

from .models import WebhookEvent, WebhookSubscription
from .services import webhooks_notify

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


def on_run_ended(*, simulation: Simulation, outcome: str, **_: Any) -> None:
    fresh = Simulation.objects.get(pk=simulation.pk)
    webhooks_notify(
        user_id=fresh.owner_id,
        simulation_id=fresh.pk,
        event=RUN_EVENTS[outcome],
        data={"simulation": simulation_data(fresh)},
    )


def on_evaluation_ended(*, evaluation: Evaluation, outcome: str, **_: Any) -> None:
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


def on_events_appended(*, simulation: Simulation, events: Sequence[Event], **_: Any) -> None:
    """One delivery per append (a step's events) for each subscription to log events of
    the kinds appended; one indexed read when nobody subscribes."""
    subscriptions = list(
        WebhookSubscription.objects.filter(
            Q(simulation__isnull=True) | Q(simulation_id=simulation.pk),
            user_id=simulation.owner_id,
            active=True,
            events__contains=[WebhookEvent.SIMULATION_EVENTS.value],
        )
    )
    for subscription in subscriptions:
        wanted = set(subscription.log_kinds)
        chosen = [event for event in events if event.kind in wanted]
        if chosen:
            webhooks_notify(
                user_id=simulation.owner_id,
                simulation_id=simulation.pk,
                event=WebhookEvent.SIMULATION_EVENTS,
                data={"simulation": simulation.pk, "events": [_event(e) for e in chosen]},
                subscriptions=[subscription],
            )


def _event(event: Event) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "step": event.step,
        "sim_time": event.sim_time.isoformat(),
        "kind": event.kind,
        "agent": event.agent,
        "payload": event.payload,
    }


def receivers_connect() -> None:
    run_ended.connect(on_run_ended, dispatch_uid="webhooks.run_ended")
    evaluation_ended.connect(on_evaluation_ended, dispatch_uid="webhooks.evaluation_ended")
    events_appended.connect(on_events_appended, dispatch_uid="webhooks.events_appended")
