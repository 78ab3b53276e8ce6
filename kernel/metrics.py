"""The service's Prometheus metrics (docs/operations.md, "Monitoring"), defined once here
and counted where the work happens: steps by the engines, model calls by the llm port,
webhook deliveries and stream clients by integration. `/metrics` (observability/metrics.py)
adds up every process's counts (prometheus-client's multiprocess mode: the folder of
PROMETHEUS_MULTIPROC_DIR, set by the settings before this module is imported).

Labels are bounded: a task, backend, model, outcome, queue or kind, never a simulation's
or a resident's id."""

from __future__ import annotations

import os
from pathlib import Path

from prometheus_client import Counter, Gauge, Histogram

_folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _folder:
    Path(_folder).mkdir(parents=True, exist_ok=True)

STEPS_COMMITTED = Counter(
    "smallville_steps_committed_total", "Simulation steps committed, by engine.", ["engine"]
)
STEP_SECONDS = Histogram(
    "smallville_step_seconds",
    "Wall seconds from a step's start to its commit, by engine.",
    ["engine"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300),
)
MODEL_CALLS = Counter(
    "smallville_model_calls_total",
    "Model calls by task, backend, model and outcome (answered, fallback, failed, shared).",
    ["task", "backend", "model", "outcome"],
)
MODEL_TOKENS = Counter(
    "smallville_model_tokens_total",
    "Tokens of model calls, by backend, model and direction (input, output).",
    ["backend", "model", "direction"],
)
MODEL_COST = Counter(
    "smallville_model_cost_usd_total",
    "Money spent on model calls (USD, by the profiles' prices), by backend and model.",
    ["backend", "model"],
)
MODEL_CALL_SECONDS = Histogram(
    "smallville_model_call_seconds",
    "Wall seconds of a model call (retries included), by task and backend.",
    ["task", "backend"],
    buckets=(0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
MODEL_CALLS_IN_FLIGHT = Gauge(
    "smallville_model_calls_in_flight",
    "Model calls being made now, by backend.",
    ["backend"],
    multiprocess_mode="livesum",
)
WEBHOOK_DELIVERIES = Counter(
    "smallville_webhook_deliveries_total",
    "Webhook delivery attempts, by outcome (succeeded, retried, failed).",
    ["outcome"],
)
STREAM_CLIENTS = Gauge(
    "smallville_stream_clients",
    "Clients of the live event streams connected now.",
    multiprocess_mode="livesum",
)
