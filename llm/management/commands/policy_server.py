"""`manage.py policy_server`: serve the offline policy as an OpenAI-compatible model until
Ctrl-C, each answer after a latency drawn from a distribution (llm/policy_server.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from llm.policy_server import MODEL, PolicyServer


class Command(BaseCommand):
    help = (
        "Serve an OpenAI-compatible chat model that answers each prompt exactly as the "
        "offline backend would, after a configurable latency; point the openai backend at "
        "it with SMALLVILLE_LLM_SEND_TASK=true."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8090, help="0: a free port")
        parser.add_argument(
            "--latency",
            default="fixed:1",
            help="fixed:SECONDS or lognormal:MEAN:P95 (seconds); default fixed:1",
        )
        parser.add_argument(
            "--slots", type=int, default=8, help="answers worked on at once (0: no limit)"
        )
        parser.add_argument("--seed", type=int, default=0, help="seeds the latency draws")
        parser.add_argument("--model", default=MODEL, help="the model name it lists")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            server = PolicyServer(
                host=options["host"],
                port=options["port"],
                latency=options["latency"],
                slots=options["slots"],
                seed=options["seed"],
                model=options["model"],
            )
        except (ValueError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        slots = options["slots"] or "unlimited"
        self.stdout.write(
            f"serving the offline policy as {server.model} at {server.base_url} "
            f"(latency {server.latency.spec}, {slots} slots); Ctrl-C stops it"
        )
        self.stdout.write("point Smallville at it with:")
        for key, value in server.env().items():
            self.stdout.write(f"  export {key}={value}")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            self.stdout.write("stopping")
        finally:
            server.close()
