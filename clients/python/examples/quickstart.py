"""Quickstart of the Smallville Python client: create a simulation, run an hour of sim time,
follow its events live, and interview a resident.

    pip install -e clients/python
    python clients/python/examples/quickstart.py --url http://127.0.0.1:8000 --token sv_...

(or set SMALLVILLE_URL and SMALLVILLE_TOKEN). The token is a key of yours: in the service's
checkout, `.venv/bin/python manage.py make_token <user> --name quickstart` prints one. The
server needs a worker to run the simulation: `make serve` starts both. CI runs this script
against the production server (tests/clients/test_quickstart.py)."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from datetime import datetime, timedelta

from smallville_client import Client, Event

BASE = "base_the_ville_isabella_maria_klaus"  # three residents of the Ville


def describe(event: Event) -> str | None:
    """A line for the events worth reading as they come; None for the rest."""
    payload, when = event["payload"], event["sim_time"][11:16]
    if event["kind"] == "agent.acting":
        return f"{when} {event['agent']}: {payload.get('action')} @ {payload.get('address')}"
    if event["kind"] == "conversation.held":
        return f"{when} {' and '.join(payload.get('participants', []))}: {payload.get('summary')}"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description="Create, run, stream and interview.")
    parser.add_argument("--url", default=os.environ.get("SMALLVILLE_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("SMALLVILLE_TOKEN"))
    parser.add_argument("--base", default=BASE, help="a base's name or id")
    parser.add_argument("--minutes", type=int, default=60, help="sim minutes to run")
    parser.add_argument("--cognition", help="'paper' (the server's default) or 'minimal'")
    args = parser.parse_args()
    if not args.token:
        parser.error(
            "an API token: --token or SMALLVILLE_TOKEN (`manage.py make_token <user> --name"
            " quickstart` in the service's checkout prints one)"
        )

    client = Client(args.url, args.token)
    config = {"cognition": args.cognition} if args.cognition else None
    simulation = client.create_simulation(args.base, name="quickstart", config=config)
    print(
        f"simulation {simulation['id']}: {simulation['base']}, "
        f"{simulation['resident_count']} residents, at {simulation['sim_time']}"
    )

    # An hour of sim time from now (its steps: 3600 / sec_per_step); workers run it.
    until = datetime.fromisoformat(simulation["sim_time"]) + timedelta(minutes=args.minutes)
    started = client.run(simulation, until=until)
    target = started["target_step"]
    print(f"running to step {target} ({until.isoformat()})")

    # The log live: every event once, in seq order, until the run's last step is logged
    # (`simulation.stepped` is the last event of each step).
    kinds: Counter[str] = Counter()
    seqs: list[int] = []
    with client.stream(simulation) as events:
        for event in events:
            kinds[event["kind"]] += 1
            seqs.append(event["seq"])
            line = describe(event)
            if line:
                print(f"  {line}")
            if event["kind"] == "simulation.stepped" and event["payload"]["step"] == target:
                break
    print(f"streamed {len(seqs)} events, seq {seqs[0]} to {seqs[-1]}")
    print("by kind: " + ", ".join(f"{kind} {n}" for kind, n in kinds.most_common()))

    progress = client.wait(simulation, timeout=120)
    print(f"run ended: {progress['status']} at step {progress['step']} ({progress['reason']})")

    resident = client.residents.list(simulation)[0]["name"]
    answer = client.interview(
        simulation, resident, "What have you been doing this past hour?", persona="a neighbour"
    )
    print(f"interview of {resident}: {answer['answer']}")


if __name__ == "__main__":
    main()
