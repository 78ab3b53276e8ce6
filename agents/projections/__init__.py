"""The agents layer's projections of the event log (kinds in `agents.events`)."""

from __future__ import annotations

from .records import CognitionProjection
from .residents import AgentProjection
from .talk import TalkProjection

PROJECTIONS = (AgentProjection(), CognitionProjection(), TalkProjection())
