"""User controls: interview a resident, whisper its inner voice, set object states, step in.

`common` holds what every control shares (errors, appending at the current step); the
controls themselves live in `voice`, `objects` and `stepping_in`; `rules` holds their
commit rules.
"""

from __future__ import annotations

from runtime.controls.common import NAME_PATTERN, ControlConflict, ControlRefused
from runtime.controls.objects import object_addresses, object_state_set
from runtime.controls.public import agent_leave
from runtime.controls.stepping_in import (
    Identity,
    agent_go,
    agent_say,
    agent_take_control,
    newcomer_create,
)
from runtime.controls.voice import agent_interview, agent_whisper, whisper_memory
from world.paths import NotWalkable, UnknownAddress, Unreachable

__all__ = [
    "NAME_PATTERN",
    "ControlConflict",
    "ControlRefused",
    "Identity",
    "NotWalkable",
    "UnknownAddress",
    "Unreachable",
    "agent_go",
    "agent_interview",
    "agent_leave",
    "agent_say",
    "agent_take_control",
    "agent_whisper",
    "newcomer_create",
    "object_addresses",
    "object_state_set",
    "whisper_memory",
]
