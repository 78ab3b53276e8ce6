"""Scenarios: timed interventions on a running town (docs/authoring.md, "Scenarios").

A scenario is added (from a base when its simulation is made, or over REST) as a
`scenario.added` event, and is pending until the engine applies it at the start of its
step: both engines call `scenarios_apply` when the log stands at a step and before any
resident decides it, and append the effects (made by the controls' services) followed by
`scenario.applied`. Everything is in the log, so replay and fork keep scenarios, and the
two engines write the same log. A scenario whose effect no longer applies when due (its
resident left) is applied with an `outcome` that says why, and changes nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Max

from agents.events import scenario_added, scenario_applied, scenario_cancelled
from agents.models import Scenario, ScenarioStatus
from agents.persona import PERSONA_FIELDS
from runtime.controls.common import ControlConflict, ControlRefused, append_now
from runtime.controls.names import name_normalised, name_skeleton
from runtime.controls.objects import object_state_draft
from runtime.controls.public import announce_drafts, leave_drafts, place_check
from runtime.controls.stepping_in import Identity, newcomer_drafts, newcomer_start
from runtime.controls.voice import whisper_drafts
from world.clock import MAX_RUN_STEPS
from world.eventlog import EventDraft, events_append
from world.models import Agent, Location, LocationKind, Simulation
from world.paths import NotWalkable, UnknownAddress, Unreachable

KINDS = ("whisper", "announce", "object_state", "arrive", "leave")
MAX_STATEMENT_CHARS = 1000
# What each kind's params hold (an arrival: a name, identity fields, a start, memories).
PARAMS: dict[str, tuple[str, ...]] = {
    "whisper": ("resident", "statement"),
    "announce": ("place", "statement"),
    "object_state": ("address", "state"),
    "arrive": ("name", *PERSONA_FIELDS, "address", "tile", "memories", "knows"),
    "leave": ("resident",),
}
REQUIRED: dict[str, tuple[str, ...]] = {
    "whisper": ("resident", "statement"),
    "announce": ("place", "statement"),
    "object_state": ("address", "state"),
    "arrive": ("name",),
    "leave": ("resident",),
}
_NOT_NOW = (ControlRefused, UnknownAddress, Unreachable, NotWalkable)


class ScenarioRefused(ControlRefused):
    """A scenario that cannot be added: `field` names what is wrong."""


def step_of(simulation: Simulation, at: datetime) -> int:
    """The first step whose sim time is at or after `at`; ScenarioRefused (field `at`)
    outside the clock's range or before the simulation's current step."""
    if at.tzinfo is None:
        raise ScenarioRefused("at needs a time zone", field="at")
    seconds = (at - simulation.start_time).total_seconds()
    step = math.ceil(seconds / simulation.sec_per_step)
    if seconds < 0 or step > MAX_RUN_STEPS:
        end = simulation.sim_time_at(MAX_RUN_STEPS)
        raise ScenarioRefused(
            f"at must be within the clock's range, {simulation.start_time.isoformat()} to "
            f"{end.isoformat()}",
            field="at",
        )
    if step < simulation.step:
        raise ScenarioRefused(
            f"at is in the past: the simulation stands at {simulation.sim_time.isoformat()}",
            field="at",
        )
    return step


def _arriving(simulation: Simulation, by_step: int | None = None) -> dict[str, int]:
    """Names of pending arrivals (skeleton -> step), those due by `by_step` when given."""
    rows = Scenario.objects.filter(
        simulation=simulation, kind="arrive", status=ScenarioStatus.PENDING
    )
    if by_step is not None:
        rows = rows.filter(step__lte=by_step)
    return {name_skeleton(str(p["name"])): s for p, s in rows.values_list("params", "step")}


def _text(params: Mapping[str, Any], field: str, *, required: bool = True) -> str:
    value = params.get(field, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise ScenarioRefused(f"{field} must be non-empty text", field=field)
    if len(value) > MAX_STATEMENT_CHARS:
        raise ScenarioRefused(f"{field} is over {MAX_STATEMENT_CHARS} characters", field=field)
    return value.strip()


def params_check(
    *, simulation: Simulation, kind: str, step: int, params: Mapping[str, Any]
) -> dict[str, Any]:
    """The params of a scenario of `kind` due at `step`, checked against the simulation as
    it stands (its residents, those arriving by then, its places and objects)."""
    if kind not in KINDS:
        raise ScenarioRefused(f"kind must be one of {', '.join(KINDS)}", field="kind")
    unknown = sorted(set(params) - set(PARAMS[kind]))
    if unknown:
        raise ScenarioRefused(f"a {kind} scenario takes no {unknown[0]}", field=unknown[0])
    for field in REQUIRED[kind]:
        _text(params, field)
    checked = dict(params)
    if "resident" in PARAMS[kind]:
        name = str(params["resident"])
        present = Agent.present.filter(simulation=simulation, name=name).exists()
        if not present and name_skeleton(name) not in _arriving(simulation, step):
            raise ScenarioRefused(
                f"no resident {name!r} lives in the town (or arrives by then)", field="resident"
            )
    for field in ("statement", "state"):
        if field in PARAMS[kind]:
            checked[field] = _text(params, field)
    if kind == "announce":
        _place(lambda: place_check(simulation=simulation, address=params["place"]), "place")
    if kind == "object_state":
        address, state = params["address"], params["state"]
        _place(
            lambda: object_state_draft(simulation=simulation, address=address, state=state),
            "address",
        )
    if kind == "arrive":
        checked = _arrival_check(simulation, params)
    return checked


def _place(check: Any, field: str) -> None:
    try:
        check()
    except (UnknownAddress, Unreachable, NotWalkable) as exc:
        raise ScenarioRefused(str(exc), field=field) from exc


def _arrival_check(simulation: Simulation, params: Mapping[str, Any]) -> dict[str, Any]:
    name = name_normalised(_text(params, "name"))
    skeleton = name_skeleton(name)
    taken = Agent.objects.filter(simulation=simulation).values_list("name", flat=True)
    if any(name_skeleton(t) == skeleton for t in taken) or skeleton in _arriving(simulation):
        raise ScenarioRefused(f"{name!r} already lives in or arrives in the town", field="name")
    address, tile = params.get("address"), params.get("tile")
    if (address is None) == (tile is None):
        raise ScenarioRefused("give exactly one of address and tile", field="address")
    if tile is not None and not (
        isinstance(tile, list) and len(tile) == 2 and all(type(v) is int for v in tile)
    ):
        raise ScenarioRefused("tile must be [x, y]", field="tile")
    try:
        newcomer_start(
            simulation, address=address, tile=(tile[0], tile[1]) if tile is not None else None
        )
    except (UnknownAddress, Unreachable, NotWalkable, ControlRefused) as exc:
        raise ScenarioRefused(str(exc), field="tile" if tile is not None else "address") from exc
    area = params.get("living_area", "")
    if (
        area
        and not Location.objects.filter(
            town_id=simulation.town_id,
            address=area,
            kind__in=[LocationKind.ARENA, LocationKind.SECTOR],
        ).exists()
    ):
        raise ScenarioRefused(f"living_area {area!r} is no place of the town", field="living_area")
    memories = params.get("memories", [])
    if not isinstance(memories, list) or not all(
        isinstance(m, str) and 0 < len(m) <= MAX_STATEMENT_CHARS for m in memories
    ):
        raise ScenarioRefused("memories must be a list of short texts", field="memories")
    if params.get("knows", "town") not in ("town", "here"):
        raise ScenarioRefused("knows must be town or here", field="knows")
    return {**params, "name": name}


def scenario_add(
    *, simulation: Simulation, kind: str, at: datetime, params: Mapping[str, Any]
) -> Scenario:
    """Add a pending scenario (validated: ScenarioRefused names the field; nothing is
    written then). It is applied at the start of the first step at or after `at`."""
    simulation.refresh_from_db()
    step = step_of(simulation, at)
    checked = params_check(simulation=simulation, kind=kind, step=step, params=params)
    with transaction.atomic():
        Simulation.objects.select_for_update().get(pk=simulation.pk)
        number = _next_number(simulation)
        draft = scenario_added(number=number, kind=kind, step=step, at=at, params=checked)
        append_now(simulation=simulation, drafts=[draft])
    return Scenario.objects.get(simulation=simulation, number=number)


def _next_number(simulation: Simulation) -> int:
    top = Scenario.objects.filter(simulation=simulation).aggregate(top=Max("number"))["top"]
    return (top or 0) + 1


def scenario_cancel(*, simulation: Simulation, scenario: Scenario) -> Scenario:
    """Cancel a pending scenario; ControlConflict once it is applied or cancelled."""
    with transaction.atomic():
        Simulation.objects.select_for_update().get(pk=simulation.pk)
        scenario.refresh_from_db()
        if scenario.status != ScenarioStatus.PENDING:
            raise ControlConflict(f"scenario {scenario.number} is {scenario.status}, not pending")
        append_now(simulation=simulation, drafts=[scenario_cancelled(number=scenario.number)])
    scenario.refresh_from_db()
    return scenario


def scenarios_next_step(*, simulation: Simulation) -> int | None:
    """The step of the earliest pending scenario, or None."""
    return (
        Scenario.objects.filter(simulation=simulation, status=ScenarioStatus.PENDING)
        .order_by("step")
        .values_list("step", flat=True)
        .first()
    )


def scenarios_apply(*, simulation_id: int, step: int) -> int:
    """Apply the scenarios due by `step` (in step, then number order) while the log stands
    at `step`, each in its own append; how many were applied."""
    applied = 0
    due = Scenario.objects.filter(
        simulation_id=simulation_id, status=ScenarioStatus.PENDING, step__lte=step
    ).order_by("step", "number")
    for scenario in due:
        simulation = Simulation.objects.get(pk=simulation_id)
        if simulation.step != step:
            break
        try:
            drafts, recipients = _effects(simulation, scenario)
            outcome = "" if recipients or scenario.kind == "object_state" else _unheard(scenario)
        except _NOT_NOW as exc:
            drafts, recipients, outcome = [], [], str(exc)
        with transaction.atomic():
            current = Simulation.objects.select_for_update().get(pk=simulation_id)
            still = Scenario.objects.filter(pk=scenario.pk, status=ScenarioStatus.PENDING)
            if current.step != step or not still.exists():
                continue
            drafts.append(
                scenario_applied(number=scenario.number, outcome=outcome, recipients=recipients)
            )
            events_append(simulation=current, drafts=drafts)
        applied += 1
    return applied


def _unheard(scenario: Scenario) -> str:
    """Why a scenario that reached nobody did nothing."""
    return f"nobody was in {scenario.params.get('place', 'the place')} to hear it"


def _effects(simulation: Simulation, scenario: Scenario) -> tuple[list[EventDraft], list[str]]:
    """A scenario's events and the residents it reaches."""
    p = scenario.params
    if scenario.kind in ("whisper", "leave"):
        agent = Agent.present.filter(simulation=simulation, name=p["resident"]).first()
        if agent is None:
            raise ControlRefused(f"{p['resident']} does not live in the town now")
        if scenario.kind == "leave":
            return leave_drafts(simulation=simulation, agent=agent), [agent.name]
        drafts = whisper_drafts(simulation=simulation, agent=agent, statement=p["statement"])
        return drafts, [agent.name]
    if scenario.kind == "announce":
        heard = announce_drafts(simulation=simulation, address=p["place"], statement=p["statement"])
        return heard.drafts, heard.listeners
    if scenario.kind == "object_state":
        state = object_state_draft(simulation=simulation, address=p["address"], state=p["state"])
        return [state], []
    tile = p.get("tile")
    arrival = newcomer_drafts(
        simulation=simulation,
        name=p["name"],
        identity=Identity(**{k: p[k] for k in PERSONA_FIELDS if k in p}),
        address=p.get("address"),
        tile=(tile[0], tile[1]) if tile else None,
        knows_town=p.get("knows", "town") == "town",
        memories=p.get("memories", []),
        user_controlled=False,
    )
    return arrival, [p["name"]]
