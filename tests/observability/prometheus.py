"""A real Prometheus server for a test (the Debian package's binary): it scrapes one
target's /metrics every second with a bearer token and answers PromQL over its HTTP API."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from types import TracebackType

from tests.chaos.processes import free_port

CONFIG = """global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: smallville
    metrics_path: /metrics
    authorization:
      type: Bearer
      credentials: {token}
    static_configs:
      - targets: ["{target}"]
"""


class Prometheus:
    def __init__(self, target: str, token: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="smallville-prometheus-"))
        (self.folder / "prometheus.yml").write_text(CONFIG.format(token=token, target=target))
        self.port = free_port()
        self.log = self.folder / "prometheus.log"
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Prometheus:
        command = [
            "prometheus",
            f"--config.file={self.folder / 'prometheus.yml'}",
            f"--storage.tsdb.path={self.folder / 'data'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
        ]
        self.process = subprocess.Popen(
            command, stdout=self.log.open("ab"), stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=2) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"prometheus was not ready within 60 s: see {self.log}")

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
        shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def value(self, promql: str) -> float | None:
        """The query's one value now (None when it has none yet)."""
        query = urllib.parse.urlencode({"query": promql})
        with urllib.request.urlopen(f"{self.url}/api/v1/query?{query}", timeout=10) as answer:
            found = json.loads(answer.read())["data"]["result"]
        return float(found[0]["value"][1]) if found else None

    def target_health(self) -> str:
        with urllib.request.urlopen(f"{self.url}/api/v1/targets", timeout=10) as answer:
            targets = json.loads(answer.read())["data"]["activeTargets"]
        return str(targets[0]["health"]) if targets else "none"
