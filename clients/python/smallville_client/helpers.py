"""What the client's calls share: a simulation given as an id or a dict, a resident's
name as a path segment, times, bodies of the fields given, and paged lists."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlsplit

from .transport import Params, Transport
from .types import Json

SimulationRef = int | Mapping[str, Any]  # an id, or a simulation as the API returned it


def simulation_id(simulation: SimulationRef) -> int:
    return int(simulation if isinstance(simulation, int) else simulation["id"])


def simulation_path(simulation: SimulationRef, *parts: str | int) -> str:
    """/api/simulations/<id>/<parts>/: a resident's name is quoted (spaces, slashes)."""
    tail = "".join(f"{quote(str(part), safe='')}/" for part in parts)
    return f"/api/simulations/{simulation_id(simulation)}/{tail}"


def iso(value: datetime | str) -> str:
    return value.isoformat() if isinstance(value, datetime) else value


def given(body: Json, **fields: Any) -> Json:
    """The body with the fields that were given (None: the server's default)."""
    return {**body, **{k: v for k, v in fields.items() if v is not None}}


def pages(transport: Transport, path: str, params: Params | None = None) -> Iterator[Any]:
    """Every item of a paged list (limit/offset or cursor), following `next`."""
    page = transport.request("GET", path, params=params)
    while True:
        yield from page["results"]
        if not page.get("next"):
            return
        parts = urlsplit(page["next"])  # the server's own URL: keep its path and query
        path = parts.path.removeprefix(transport.prefix)
        page = transport.request("GET", f"{path}?{parts.query}")
