"""User controls: interview a resident, whisper its inner voice, set object states, step in.

`common` holds what every control shares (errors, appending at the current step); the
controls themselves live in `voice`, `objects` and `stepping_in`; `players` says who
may act for which resident; `rules` holds their commit rules.
"""

from __future__ import annotations

from runtime.controls.common import NAME_PATTERN, ControlConflict, ControlRefused
from runtime.controls.objects import object_addresses, object_state_set
from runtime.controls.players import (
    NotYours,
    control_check,
    may_control,
    player_join,
    player_leave,
    player_take_over,
    players_of,
    share_set,
    sight_of,
)
from runtime.controls.public import agent_leave
from runtime.controls.stepping_in import (
    Identity,
    agent_go,
    agent_say,
    agent_take_control,
    in_sight,
    newcomer_create,
    tiles_apart,
)
from runtime.controls.voice import agent_interview, agent_whisper, whisper_memory
from world.paths import NotWalkable, UnknownAddress, Unreachable

__all__ = [
    "NAME_PATTERN",
    "ControlConflict",
    "ControlRefused",
    "Identity",
    "NotWalkable",
    "NotYours",
    "UnknownAddress",
    "Unreachable",
    "agent_go",
    "agent_interview",
    "agent_leave",
    "agent_say",
    "agent_take_control",
    "agent_whisper",
    "control_check",
    "in_sight",
    "may_control",
    "newcomer_create",
    "object_addresses",
    "object_state_set",
    "player_join",
    "player_leave",
    "player_take_over",
    "players_of",
    "share_set",
    "sight_of",
    "tiles_apart",
    "whisper_memory",
]
