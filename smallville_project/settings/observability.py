"""The service seen from outside (observability/, docs/operations.md "Monitoring").

Metrics: every process of a deployment on one machine (the web's and the workers') writes
its counts to files in one folder, which `/metrics` adds up (prometheus-client's
multiprocess mode). SMALLVILLE_METRICS_DIR names it; by default a folder per queue
(SMALLVILLE_QUEUE) in the system's temporary folder, so the web and the workers of one
deployment share it and two deployments on one machine do not. It is set as
PROMETHEUS_MULTIPROC_DIR for prometheus-client before any metric exists; SMALLVILLE_METRICS
off leaves the counts in each process's memory.

`/metrics` answers a request carrying `Authorization: Bearer <SMALLVILLE_METRICS_TOKEN>`
when a token is set, and one from an address in SMALLVILLE_METRICS_ALLOW (addresses or
networks, comma-separated; loopback by default); any other gets 403.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from smallville_project.environment import env_bool, env_networks, env_str

SMALLVILLE_METRICS_DIR = env_str("SMALLVILLE_METRICS_DIR", "") or str(
    Path(tempfile.gettempdir())
    / "smallville-metrics"
    / env_str("SMALLVILLE_QUEUE", "smallville").replace("/", "_")
)
# Off, the counts stay in each process's memory and `/metrics` answers 404.
SMALLVILLE_METRICS = env_bool("SMALLVILLE_METRICS", True)
if SMALLVILLE_METRICS:
    # Set, not defaulted: a process started by another deployment's (a test's server, a
    # bench's worker) must not inherit that one's folder.
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = SMALLVILLE_METRICS_DIR
else:
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
SMALLVILLE_METRICS_TOKEN = env_str("SMALLVILLE_METRICS_TOKEN", "")
SMALLVILLE_METRICS_ALLOW = env_networks("SMALLVILLE_METRICS_ALLOW", "127.0.0.1/32,::1/128")

# Traces: off unless OTEL_EXPORTER_OTLP_ENDPOINT names a collector (kernel/tracing.py reads
# the standard OTEL_* variables). A model call's span carries its prompt and answer only
# when this is on: prompts hold what residents remember.
SMALLVILLE_TRACE_CONTENT = env_bool("SMALLVILLE_TRACE_CONTENT", False)
