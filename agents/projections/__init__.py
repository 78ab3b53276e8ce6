"""The agents layer's projections of the event log (kinds in `agents.events`)."""

from __future__ import annotations

from agents.projections.records import CognitionProjection
from agents.projections.residents import AgentProjection
from agents.projections.scenarios import ScenarioProjection
from agents.projections.talk import TalkProjection

PROJECTIONS = (AgentProjection(), CognitionProjection(), TalkProjection(), ScenarioProjection())
