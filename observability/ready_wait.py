"""`python -m observability.ready_wait URL [SECONDS]`: wait until the server at URL says it
is ready (`/readyz` 200), then print so; or print what is down and exit 1 after SECONDS
(60). `make serve` runs it beside the server."""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request


def readiness(url: str) -> tuple[int, list[str]]:
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=5) as answer:
            return int(answer.status), []
    except urllib.error.HTTPError as answer:
        return int(answer.code), list(json.loads(answer.read() or b"{}").get("down", []))
    except OSError as exc:
        return 0, [f"the server ({exc})"]


def main(argv: list[str]) -> int:
    url, seconds = argv[0].rstrip("/"), float(argv[1]) if len(argv) > 1 else 60.0
    deadline = time.monotonic() + seconds
    status, down = readiness(url)
    while status != 200 and time.monotonic() < deadline:
        time.sleep(0.5)
        status, down = readiness(url)
    if status == 200:
        print(f"ready: {url}/ (health {url}/healthz, readiness {url}/readyz)")
        return 0
    print(f"not ready after {seconds:.0f} s: down: {', '.join(down)} ({url}/readyz)")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
