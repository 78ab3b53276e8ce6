"""What metrics and traces cost the engine: `python -m bench observability [--steps N]`.

An n25 sim hour (base_the_ville_n25, the paper's cognition, the offline backend, 10 s a
step from 2023-02-13 07:00, in one process: `simulation_run_inline`) in fresh processes:
once to warm the embedding cache (every later run finds its texts embedded), then
`--rounds` times each way, alternated: with metrics off (`SMALLVILLE_METRICS=0`) and no
trace endpoint, and with the metrics on and every span exported over OTLP/HTTP to a
collector stand-in in this process (it takes each export and answers 200, as a collector
does). Prints one JSON object: the median wall and CPU seconds each way, every run's, the
spans' exports received, and on/off.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.machine import stamp

START = datetime(2023, 2, 13, 7, 0, tzinfo=UTC)


class Collector:
    """Takes OTLP/HTTP exports (any path) and counts them and their bytes."""

    def __init__(self) -> None:
        self.exports = 0
        self.bytes = 0
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", "0"))
                self.rfile.read(size)
                collector.exports += 1
                collector.bytes += size
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


def child(steps: int) -> None:
    """One run in this process; prints its JSON."""
    from agents.services import simulation_create_from_base
    from bench.runs import bench_owner
    from kernel.tracing import flush
    from runtime.engine.inline import simulation_run_inline

    simulation = simulation_create_from_base(
        owner=bench_owner(),
        base="base_the_ville_n25",
        seed=3,
        name="bench observability",
        config={"cognition": "paper"},
        start_time=START,
    )
    cpu, wall = time.process_time(), time.monotonic()
    simulation_run_inline(simulation=simulation, steps=steps)
    flush()
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    print(json.dumps({"wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2)}))


def run(steps: int, env: dict[str, str]) -> dict[str, Any]:
    command = [sys.executable, "-m", "bench", "observability", "--child", "--steps", str(steps)]
    done = subprocess.run(
        command, env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench observability", description=__doc__)
    parser.add_argument("--steps", type=int, default=360)
    parser.add_argument("--rounds", type=int, default=3, help="off and on runs, alternated")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.steps)
        return
    collector = Collector()
    off_env = {"SMALLVILLE_METRICS": "0", "OTEL_EXPORTER_OTLP_ENDPOINT": ""}
    run(args.steps, off_env)  # warm: the texts embedded once, as every later run finds them
    offs, ons = [], []
    with tempfile.TemporaryDirectory(prefix="smallville-bench-metrics-") as folder:
        on_env = {
            "SMALLVILLE_METRICS": "1",
            "SMALLVILLE_METRICS_DIR": folder,
            "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint,
        }
        for _ in range(args.rounds):  # alternated, so a drift in the machine hits both
            offs.append(run(args.steps, off_env))
            ons.append(run(args.steps, on_env))
    off, on = _median(offs), _median(ons)
    report = {
        **stamp(),
        "residents": 25,
        "steps": args.steps,
        "rounds": args.rounds,
        "off": off,
        "on": {**on, "exports": collector.exports, "export_bytes": collector.bytes},
        "runs": {"off": offs, "on": ons},
        "on_over_off_wall": round(on["wall_seconds"] / off["wall_seconds"], 3),
        "on_over_off_cpu": round(on["cpu_seconds"] / off["cpu_seconds"], 3),
        "load_average": [round(x, 1) for x in os.getloadavg()],
    }
    print(json.dumps(report, indent=2))
