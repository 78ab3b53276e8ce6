"""The authoring calls: bases (docs/authoring.md), a simulation's scenarios (timed
interventions), and residents arriving and leaving."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from .helpers import SimulationRef, given, iso, pages, simulation_path
from .transport import Transport
from .types import Base, Resident, Scenario


class _Section:
    def __init__(self, transport: Transport) -> None:
        self._http = transport


class Bases(_Section):
    """Bases (docs/authoring.md): yours, and the shipped ones (read-only; copy one to
    change it)."""

    def list(self) -> builtins.list[Base]:
        return list(pages(self._http, "/api/bases/"))

    def get(self, base: int) -> Base:
        return cast(Base, self._http.request("GET", f"/api/bases/{base}/"))

    def create(self, document: Mapping[str, Any]) -> Base:
        """A base from a base file's content (`format`, `name`, `town`, `start_time`,
        `sec_per_step`, `residents`, `scenarios`): a 400 names the field at fault, e.g.
        `residents.0.living_area`."""
        return cast(Base, self._http.request("POST", "/api/bases/", body=dict(document)))

    def update(self, base: int, changes: Mapping[str, Any]) -> Base:
        """Change some top-level fields (PATCH)."""
        return cast(Base, self._http.request("PATCH", f"/api/bases/{base}/", body=dict(changes)))

    def copy(self, base: int, name: str = "") -> Base:
        """A copy of yours (default name: the base's with "(copy)")."""
        body = {"name": name} if name else {}
        return cast(Base, self._http.request("POST", f"/api/bases/{base}/copy/", body=body))

    def delete(self, base: int) -> None:
        self._http.request("DELETE", f"/api/bases/{base}/")


class Scenarios(_Section):
    """Timed interventions of a simulation (docs/authoring.md, Scenarios)."""

    def add(
        self, simulation: SimulationRef, kind: str, at: datetime | str, **params: Any
    ) -> Scenario:
        """At sim time `at`: `whisper` (resident, statement), `announce` (place,
        statement), `object_state` (address, state), `arrive` (name, identity fields,
        address or tile, memories), `leave` (resident)."""
        body = {"kind": kind, "at": iso(at), **params}
        path = simulation_path(simulation, "scenarios")
        return cast(Scenario, self._http.request("POST", path, body=body))

    def list(self, simulation: SimulationRef, status: str | None = None) -> builtins.list[Scenario]:
        path = simulation_path(simulation, "scenarios")
        return cast(
            builtins.list[Scenario], self._http.request("GET", path, params={"status": status})
        )

    def get(self, simulation: SimulationRef, number: int) -> Scenario:
        path = simulation_path(simulation, "scenarios", number)
        return cast(Scenario, self._http.request("GET", path))

    def cancel(self, simulation: SimulationRef, number: int) -> Scenario:
        """Cancel a pending one (it stays listed as cancelled); 409 once applied."""
        path = simulation_path(simulation, "scenarios", number)
        return cast(Scenario, self._http.request("DELETE", path))


class Residents(_Section):
    """A simulation's residents; newcomers arrive and residents leave now (a later
    arrival or leave is a scenario)."""

    def list(self, simulation: SimulationRef) -> builtins.list[Resident]:
        return list(pages(self._http, simulation_path(simulation, "residents")))

    def get(self, simulation: SimulationRef, resident: str) -> Resident:
        path = simulation_path(simulation, "residents", resident)
        return cast(Resident, self._http.request("GET", path))

    def arrive(
        self,
        simulation: SimulationRef,
        name: str,
        *,
        address: str | None = None,
        tile: tuple[int, int] | None = None,
        user_controlled: bool = False,
        memories: Sequence[str] = (),
        **identity: Any,
    ) -> Resident:
        """A newcomer at `address` (a place of the town) or `tile`, living its own day
        (or, with `user_controlled`, waiting for go and say); `identity`: age, innate,
        learned, currently, lifestyle, living_area, daily_plan_requirement, knows."""
        body = given(
            {"name": name, "user_controlled": user_controlled, "memories": list(memories)},
            address=address,
            tile=list(tile) if tile else None,
            **identity,
        )
        path = simulation_path(simulation, "residents")
        return cast(Resident, self._http.request("POST", path, body=body))

    def leave(self, simulation: SimulationRef, resident: str) -> Resident:
        """The resident leaves the town now (409 if it left already)."""
        path = simulation_path(simulation, "residents", resident)
        return cast(Resident, self._http.request("DELETE", path))
