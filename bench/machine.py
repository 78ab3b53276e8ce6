"""Facts about the machine a benchmark ran on, for its JSON report."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def cpu_model() -> str | None:
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists():
        return None
    for line in cpuinfo.read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return None


def machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model(),
    }


def stamp() -> dict[str, Any]:
    """The date and the machine: the first keys of every report."""
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine()}
