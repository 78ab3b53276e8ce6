"""The runtime: how a simulation's ticks are carried and decided (engines, shards,
threads) and how a dead worker's work is found and resumed (docs/operations.md)."""

from __future__ import annotations

from smallville_project.environment import env_bool, env_choice, env_float, env_int, env_str

# A reflection job's attempts on a worker, and the first retry's delay in seconds (then
# doubling, at most 60 s): runtime/reflections.py.
SMALLVILLE_REFLECTION_MAX_ATTEMPTS = env_int("SMALLVILLE_REFLECTION_MAX_ATTEMPTS", 4)
SMALLVILLE_REFLECTION_BACKOFF = env_float("SMALLVILLE_REFLECTION_BACKOFF", 2)
# Recovery in seconds (docs/operations.md). A worker holding a unit of work of a
# simulation (a tick, agent steps, a commit) or a reflection job renews a lease in the
# shared cache every third of SMALLVILLE_LEASE_SECONDS. Every worker's watchdog looks each
# SMALLVILLE_WATCHDOG_SECONDS for running simulations with no progress (no event, no
# decision) for SMALLVILLE_STALL_SECONDS and no live lease, and for reflection jobs whose
# lease lapsed, and sends their work again: a killed worker's work resumes within about
# lease + stall + watchdog seconds, whatever the broker's visibility timeout.
SMALLVILLE_LEASE_SECONDS = env_float("SMALLVILLE_LEASE_SECONDS", 6)
SMALLVILLE_STALL_SECONDS = env_float("SMALLVILLE_STALL_SECONDS", 8)
SMALLVILLE_WATCHDOG_SECONDS = env_float("SMALLVILLE_WATCHDOG_SECONDS", 3)
# Agents per agent-step task: a tick of 500 agents is 20 tasks, not 500.
SMALLVILLE_SHARD_SIZE = env_int("SMALLVILLE_SHARD_SIZE", 25)
# Who carries the tick's units of work (runtime.dispatch): Celery by default.
SMALLVILLE_BROKER = env_str("SMALLVILLE_BROKER", "runtime.tasks.CeleryBroker")
# Agents of a shard decided at once when a model server answers (their calls overlap).
SMALLVILLE_AGENT_THREADS = env_int("SMALLVILLE_AGENT_THREADS", 25)
# The tick engine (docs/architecture.md): "barrier" decides every resident at step t and
# then commits the town; "ahead" lets groups of residents that cannot meet run ahead of
# each other, with the same log. Under "ahead", residents' decisions (and so their model
# calls) in flight at once in the process that runs the simulation:
SMALLVILLE_ENGINE = env_choice("SMALLVILLE_ENGINE", "barrier", choices=("barrier", "ahead"))
SMALLVILLE_CALLS_IN_FLIGHT = env_int("SMALLVILLE_CALLS_IN_FLIGHT", SMALLVILLE_AGENT_THREADS)
# Which groups "ahead" starts first: "behind" (the furthest behind: the critical path) or
# "ahead" (the furthest ahead: the largest leads, which the tests use to try the rule).
SMALLVILLE_AHEAD_ORDER = env_choice("SMALLVILLE_AHEAD_ORDER", "behind", choices=("behind", "ahead"))
# "ahead" across workers (docs/architecture.md, "One simulation across several workers"):
# the process that runs a simulation's residents sends each group it starts to the
# deployment's workers, whichever is free decides it, and the run commits it. A group no
# worker has taken after SMALLVILLE_SPREAD_PICKUP_SECONDS (or whose worker died: its
# lease lapsed) is decided by the run's own process.
SMALLVILLE_AHEAD_SPREAD = env_bool("SMALLVILLE_AHEAD_SPREAD", False)
SMALLVILLE_SPREAD_PICKUP_SECONDS = env_float("SMALLVILLE_SPREAD_PICKUP_SECONDS", 0.25)
