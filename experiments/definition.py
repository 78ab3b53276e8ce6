"""An experiment's definition: its schema, and the checks that need the database (the base,
the simulation forked, the clock, the residents a variant names). A bad definition is
DefinitionInvalid naming its field (`variants[1].config.ablations`); nothing is written.

{
  "name": "...",
  "start": {"base": "<a base's id or name>"}                    a new town per run, or
           {"simulation": <id>, "step": <n>}                    forks of one step (a counterfactual)
  "span": {"steps": <n>} or {"until": "<sim time>"},            how far each run goes
  "seeds": <how many> or [<seed>, ...],
  "variants": [{"name", "config", "seed_memories", "scenarios", "models"}, ...],
  "measures": {"facts": [...], "events": [...], "every_minutes": 60},
  "concurrency": <runs at once>
}
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from functools import cached_property
from typing import Annotated, Any

from django.contrib.auth.models import User
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from agents.bases import UnknownBase
from agents.bases.format import Document, ScenarioSpec
from agents.bases.selectors import base_resolve
from agents.bases.services import base_document
from agents.config import ConfigInvalid, config_normalise
from agents.models import Scenario
from evaluations.named import MeasureError, measures_parse
from world.clock import MAX_RUN_STEPS
from world.fieldpath import loc_errors, loc_path, path_join
from world.models import Simulation

MAX_SEEDS = 100
MAX_VARIANTS = 12
MAX_CONCURRENCY = 16
MAX_SEED = 2**31 - 1  # as a simulation's (api.simulations.serializers)

Text = Annotated[StrictStr, Field(min_length=1, max_length=200)]
Statement = Annotated[StrictStr, Field(min_length=1, max_length=1000)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Start(_Strict):
    base: StrictStr | StrictInt | None = None
    simulation: StrictInt | None = None
    step: Annotated[StrictInt, Field(ge=0)] | None = None


class Span(_Strict):
    steps: Annotated[StrictInt, Field(ge=1, le=MAX_RUN_STEPS)] | None = None
    until: datetime | None = None


class MemoryLeftOut(_Strict):
    resident: Text
    containing: Text  # a seed memory holding these words (any case) is left out


class MemoryAdded(_Strict):
    resident: Text
    memory: Statement


class SeedMemories(_Strict):
    remove: list[MemoryLeftOut] = Field(default_factory=list, max_length=50)
    add: list[MemoryAdded] = Field(default_factory=list, max_length=50)


class Scenarios(_Strict):
    add: list[ScenarioSpec] = Field(default_factory=list, max_length=50)
    cancel: list[Annotated[StrictInt, Field(ge=1)]] = Field(default_factory=list, max_length=50)


class Variant(_Strict):
    """One condition: what it changes of the start. A variant that changes nothing is the
    control."""

    name: Text
    config: dict[str, Any] = Field(default_factory=dict)
    seed_memories: SeedMemories = Field(default_factory=SeedMemories)
    scenarios: Scenarios = Field(default_factory=Scenarios)
    models: dict[StrictStr, StrictInt | None] = Field(default_factory=dict)


class MeasureSpec(_Strict):
    facts: list[Any] | None = None  # None: the base's
    events: list[Any] | None = None
    every_minutes: Annotated[StrictInt, Field(ge=1, le=24 * 60)] = 60


class Definition(_Strict):
    name: Text
    description: Annotated[StrictStr, Field(max_length=2000)] = ""
    start: Start
    span: Span
    seeds: Annotated[StrictInt, Field(ge=1, le=MAX_SEEDS)] | list[StrictInt]
    variants: list[Variant] = Field(min_length=1, max_length=MAX_VARIANTS)
    measures: MeasureSpec = Field(default_factory=MeasureSpec)
    concurrency: Annotated[StrictInt, Field(ge=1, le=MAX_CONCURRENCY)] = 2


class DefinitionInvalid(ValueError):
    """`field` is the path of the bad part (`variants[1].name`, world.fieldpath); the
    message says why; `errors` has every bad part's messages by path (a definition that
    breaks its schema in several places), `field`'s first."""

    def __init__(
        self, field: str, message: str, errors: dict[str, list[str]] | None = None
    ) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.errors = errors or {field: [message]}


def _undefinition(field: str) -> str:
    # The whole definition's errors under "definition", a field's under its own path.
    return field.removeprefix("definition.") if field != "definition" else field


def definition_check(*, owner: User, data: Any) -> dict[str, Any]:
    """The definition as stored (JSON), or DefinitionInvalid naming the first bad field."""
    if not isinstance(data, dict):
        raise DefinitionInvalid("definition", "must be a JSON object")
    try:
        definition = Definition.model_validate(data)
    except ValidationError as exc:
        errors = loc_errors(exc.errors(), prefix="definition")
        errors = {_undefinition(field): messages for field, messages in errors.items()}
        field, messages = next(iter(errors.items()))
        raise DefinitionInvalid(field, messages[0], errors) from None
    seeds = _seeds_checked(definition)
    start = _start_checked(owner, definition)
    _span_checked(definition, start)
    for i, variant in enumerate(definition.variants):
        _variant_checked(i, variant, start)
    _variants_distinct(definition, start)
    _measures_checked(definition)
    stored = definition.model_dump(mode="json")
    stored["seeds"] = seeds
    stored["variants"] = [
        {**v, "config": config_normalise({**start.config, **v["config"]})}
        for v in stored["variants"]
    ]
    stored["start"] = start.as_json()
    stored["span_steps"] = span_steps(stored, start_time=start.at, sec_per_step=start.sec_per_step)
    return stored


class _Origin:
    """What the runs start from: a base (its document) or a simulation at a step."""

    def __init__(
        self,
        *,
        base: dict[str, Any] | None = None,
        base_id: int | None = None,
        simulation: Simulation | None = None,
        step: int = 0,
    ) -> None:
        self.base, self.base_id, self.simulation, self.step = base, base_id, simulation, step

    @cached_property
    def config(self) -> dict[str, Any]:
        return dict(self.simulation.config) if self.simulation else {}

    @cached_property
    def start_time(self) -> datetime:
        if self.simulation is not None:
            return self.simulation.start_time
        assert self.base is not None
        return datetime.fromisoformat(str(self.base["start_time"]).replace("Z", "+00:00"))

    @cached_property
    def sec_per_step(self) -> int:
        if self.simulation is not None:
            return self.simulation.sec_per_step
        assert self.base is not None
        return int(self.base.get("sec_per_step", 10))

    @cached_property
    def residents(self) -> dict[str, list[str]]:
        if self.simulation is not None:
            return {a.name: [] for a in self.simulation.agents.all()}
        assert self.base is not None
        return {r["name"]: list(r.get("seed_memories", [])) for r in self.base["residents"]}

    @property
    def at(self) -> datetime:
        """The sim time the runs start from: step 0's, or the fork's step's."""
        return self.start_time + timedelta(seconds=self.step * self.sec_per_step)

    def as_json(self) -> dict[str, Any]:
        if self.simulation is not None:
            return {"simulation": self.simulation.pk, "step": self.step}
        return {"base": self.base_id}


def _seeds_checked(definition: Definition) -> list[int]:
    if isinstance(definition.seeds, int):
        return list(range(1, definition.seeds + 1))
    seeds = definition.seeds
    if not 1 <= len(seeds) <= MAX_SEEDS:
        raise DefinitionInvalid("seeds", f"give from 1 to {MAX_SEEDS} seeds")
    if len(set(seeds)) != len(seeds):
        raise DefinitionInvalid("seeds", "the seeds must differ")
    if any(not 0 <= s <= MAX_SEED for s in seeds):
        raise DefinitionInvalid("seeds", f"each seed must be from 0 to {MAX_SEED}")
    return list(seeds)


def _start_checked(owner: User, definition: Definition) -> _Origin:
    start = definition.start
    if (start.base is None) == (start.simulation is None):
        raise DefinitionInvalid("start", "give either base, or simulation and step")
    if start.base is not None:
        if start.step is not None:
            raise DefinitionInvalid("start.step", "a step goes with a simulation, not a base")
        try:
            row = base_resolve(user=owner, base=start.base)
        except UnknownBase as exc:
            raise DefinitionInvalid("start.base", str(exc)) from None
        return _Origin(base=base_document(base=row), base_id=row.pk)
    assert start.simulation is not None
    simulation = Simulation.objects.filter(owner=owner, pk=start.simulation).first()
    if simulation is None:
        raise DefinitionInvalid("start.simulation", f"no simulation {start.simulation} of yours")
    step = simulation.step if start.step is None else start.step
    if step > simulation.step:
        raise DefinitionInvalid(
            "start.step", f"simulation {simulation.pk} has run to step {simulation.step} only"
        )
    return _Origin(simulation=simulation, step=step)


def _span_checked(definition: Definition, start: _Origin) -> None:
    span = definition.span
    if (span.steps is None) == (span.until is None):
        raise DefinitionInvalid("span", "give exactly one of steps and until")
    if span.until is not None:
        if span.until.tzinfo is None:
            raise DefinitionInvalid("span.until", "needs a time zone, e.g. 2023-02-14T00:00:00Z")
        steps = span_steps(
            definition.model_dump(mode="json"),
            start_time=start.at,
            sec_per_step=start.sec_per_step,
        )
        if steps < 1:
            raise DefinitionInvalid(
                "span.until", f"must be after the start, {start.at.isoformat()}"
            )
        if steps > MAX_RUN_STEPS:
            raise DefinitionInvalid(
                "span.until", f"is more than {MAX_RUN_STEPS:,} steps after the start"
            )


def span_steps(definition: dict[str, Any], *, start_time: datetime, sec_per_step: int) -> int:
    """How many steps each run goes from its start at `start_time`."""
    span = definition["span"]
    if span.get("steps") is not None:
        return int(span["steps"])
    until = datetime.fromisoformat(str(span["until"]).replace("Z", "+00:00"))
    return int((until - start_time).total_seconds() // sec_per_step)


def _variant_checked(i: int, variant: Variant, start: _Origin) -> None:
    at = f"variants[{i}]"
    try:
        config_normalise({**start.config, **variant.config})
    except ConfigInvalid as exc:
        field, messages = next(iter(exc.errors.items()))
        raise DefinitionInvalid(path_join(at, field), messages[0]) from None
    residents = start.residents
    memories = variant.seed_memories
    if (memories.remove or memories.add) and start.simulation is not None:
        raise DefinitionInvalid(
            f"{at}.seed_memories",
            "a counterfactual forks a town already running: its seed memories are past; "
            "whisper to a resident instead (scenarios.add)",
        )
    for j, left in enumerate(memories.remove):
        where = f"{at}.seed_memories.remove[{j}]"
        if left.resident not in residents:
            raise DefinitionInvalid(f"{where}.resident", f"no resident {left.resident!r}")
        if not any(left.containing.lower() in m.lower() for m in residents[left.resident]):
            raise DefinitionInvalid(
                f"{where}.containing", f"no seed memory of {left.resident} holds it"
            )
    for j, added in enumerate(memories.add):
        if added.resident not in residents:
            raise DefinitionInvalid(
                f"{at}.seed_memories.add[{j}].resident", f"no resident {added.resident!r}"
            )
    if start.simulation is not None:
        _fork_scenarios_checked(at, variant, start)
    if start.base is not None:
        base_scenarios = len(start.base.get("scenarios", []))
        for j, number in enumerate(variant.scenarios.cancel):
            if number > base_scenarios:
                raise DefinitionInvalid(
                    f"{at}.scenarios.cancel[{j}]", f"the base has {base_scenarios} scenarios"
                )
        _scenarios_fit(at, variant, start)


def _fork_scenarios_checked(at: str, variant: Variant, start: _Origin) -> None:
    """A counterfactual adds scenarios after its fork's step and cancels pending ones."""
    assert start.simulation is not None
    fork_time = start.at
    for j, scenario in enumerate(variant.scenarios.add):
        if scenario.kind == "arrive":
            raise DefinitionInvalid(
                f"{at}.scenarios.add[{j}].kind", "a counterfactual cannot add an arrival"
            )
        if scenario.at <= fork_time:
            raise DefinitionInvalid(
                f"{at}.scenarios.add[{j}].at", f"must be after the fork, {fork_time.isoformat()}"
            )
    pending = set(
        Scenario.objects.filter(
            simulation=start.simulation, step__gt=start.step, added_step__lte=start.step
        ).values_list("number", flat=True)
    )
    for j, number in enumerate(variant.scenarios.cancel):
        if number not in pending:
            raise DefinitionInvalid(
                f"{at}.scenarios.cancel[{j}]", f"no scenario {number} due after the fork's step"
            )


def _scenarios_fit(at: str, variant: Variant, start: _Origin) -> None:
    """The base with the variant's scenarios added must still be a valid base."""
    assert start.base is not None
    added = [s.model_dump(mode="json", exclude_none=True) for s in variant.scenarios.add]
    try:
        Document.model_validate(
            {**start.base, "scenarios": [*start.base.get("scenarios", []), *added]}
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = list(error["loc"])
        if loc[:1] == ["scenarios"] and len(loc) > 1 and isinstance(loc[1], int):
            loc[1] -= len(start.base.get("scenarios", []))
        where = path_join(f"{at}.scenarios.add", loc_path(loc[1:]))
        raise DefinitionInvalid(where, error["msg"]) from None
    for j, scenario in enumerate(variant.scenarios.add):
        if scenario.at < start.start_time:
            raise DefinitionInvalid(
                f"{at}.scenarios.add[{j}].at",
                f"is before the start, {start.start_time.isoformat()}",
            )
        if scenario.resident is not None and scenario.resident not in start.residents:
            raise DefinitionInvalid(
                f"{at}.scenarios.add[{j}].resident", f"no resident {scenario.resident!r}"
            )


def _variants_distinct(definition: Definition, start: _Origin) -> None:
    seen: dict[str, int] = {}
    names: dict[str, int] = {}
    for i, variant in enumerate(definition.variants):
        dumped = variant.model_dump(mode="json", exclude={"name"})
        dumped["config"] = config_normalise({**start.config, **variant.config})
        key = json.dumps(dumped, sort_keys=True)
        if key in seen:
            raise DefinitionInvalid(f"variants[{i}]", f"changes the same as variants[{seen[key]}]")
        if variant.name.lower() in names:
            raise DefinitionInvalid(f"variants[{i}].name", "two variants share this name")
        seen[key] = i
        names[variant.name.lower()] = i


def _measures_checked(definition: Definition) -> None:
    measures = definition.measures
    try:
        measures_parse(measures.facts or [], measures.events or [])
    except MeasureError as exc:
        raise DefinitionInvalid(path_join("measures", exc.field), exc.message) from None
