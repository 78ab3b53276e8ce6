"""The hour blocks of a resident's day plan, as cognition holds them while it decides."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from agents.sleep import is_sleeping


@dataclass
class Block:
    """An hour block of the plan: what, when and where (sector, arena)."""

    description: str
    start: datetime
    minutes: int
    sector: str
    arena: str
    number: int | None = None  # the PlanItem's, once it exists
    source_memory: int | None = None  # the memory of the commitment it keeps

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)

    @property
    def sleeping(self) -> bool:
        return is_sleeping(self.description)
