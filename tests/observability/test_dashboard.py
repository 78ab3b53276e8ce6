"""The Grafana dashboard in the docs reads only metrics the service exports, so it cannot
go stale unseen when a metric is renamed."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client import REGISTRY

import kernel.metrics  # noqa: F401  (registers the service's metrics)

DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana-dashboard.json"
READ_WHEN_SCRAPED = {"smallville_workers_live", "smallville_queue_depth"}


def exported() -> set[str]:
    names = set(READ_WHEN_SCRAPED)
    for family in REGISTRY.collect():
        for sample in family.samples:
            names.add(sample.name)
        names.add(family.name)
        if family.type == "counter":
            names.add(f"{family.name}_total")
        if family.type == "histogram":
            names |= {f"{family.name}_bucket", f"{family.name}_count", f"{family.name}_sum"}
    return names


def test_every_panel_reads_metrics_the_service_exports() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    used = {
        name
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"smallville_[a-z_]+", target["expr"])
    }
    assert len(dashboard["panels"]) >= 10
    assert used and used <= exported(), used - exported()
    assert {"smallville_steps_committed_total", "smallville_model_calls_total"} <= used
