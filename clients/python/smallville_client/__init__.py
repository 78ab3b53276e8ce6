"""A typed client of the Smallville API, on the standard library alone.

    from smallville_client import Client

    client = Client("http://127.0.0.1:8000", token="sv_...")
    simulation = client.create_simulation("base_the_ville_isabella_maria_klaus")
    client.run(simulation, steps=360)
    with client.stream(simulation) as events:
        for event in events: ...

The guide: docs/integration.md, "The Python client"."""

from .authoring import Bases, Residents, Scenarios
from .client import Client
from .errors import (
    ApiError,
    BadRequest,
    Conflict,
    ConnectionFailed,
    FieldError,
    Forbidden,
    NotFound,
    SmallvilleError,
    StreamDisconnected,
    Throttled,
    Unauthorized,
    Unavailable,
    WaitTimeout,
)
from .stream import EventStream
from .transport import retry_after_seconds
from .types import (
    Base,
    Evaluation,
    Event,
    Interview,
    Progress,
    Resident,
    Scenario,
    Simulation,
    Whisper,
)

__all__ = [
    "ApiError",
    "BadRequest",
    "Base",
    "Bases",
    "Client",
    "Conflict",
    "ConnectionFailed",
    "Evaluation",
    "Event",
    "EventStream",
    "FieldError",
    "Forbidden",
    "Interview",
    "NotFound",
    "Progress",
    "Resident",
    "Residents",
    "Scenario",
    "Scenarios",
    "Simulation",
    "SmallvilleError",
    "StreamDisconnected",
    "Throttled",
    "Unauthorized",
    "Unavailable",
    "WaitTimeout",
    "Whisper",
    "retry_after_seconds",
]
