"""The leases of the engine's units of work: a simulation's work, the run ahead, a
reflection job (the mechanism is world/leases.py)."""

from __future__ import annotations

from world.leases import lease_held, leases_alive

__all__ = [
    "ahead_lease",
    "group_lease",
    "job_lease",
    "lease_held",
    "leases_alive",
    "simulation_lease",
]


def simulation_lease(simulation_id: int) -> str:
    return f"smallville:lease:simulation:{simulation_id}"


def ahead_lease(simulation_id: int) -> str:
    """Held by the process running a simulation's residents ahead of each other."""
    return f"smallville:lease:ahead:{simulation_id}"


def job_lease(job_id: int) -> str:
    return f"smallville:lease:reflection:{job_id}"


def group_lease(token: str) -> str:
    """Held by the process deciding a group of a run spread over workers."""
    return f"smallville:lease:group:{token}"
