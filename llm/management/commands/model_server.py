"""`manage.py model_server`: serve the local model (a GGUF file) until Ctrl-C."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from llm.local import LocalModelServer


class Command(BaseCommand):
    help = (
        "Serve a GGUF model with llama-cpp-python's OpenAI-compatible server on 127.0.0.1 "
        "(SMALLVILLE_LOCAL_MODEL_PATH, else the bundled SmolLM2-135M-Instruct)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--model", type=Path, help="a GGUF file (default: the setting)")
        parser.add_argument("--port", type=int, default=None)
        parser.add_argument("--context", type=int, default=None, help="context window, tokens")

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings

        server = LocalModelServer(
            model=options["model"],
            port=options["port"] or settings.SMALLVILLE_LOCAL_MODEL_PORT,
            context_tokens=options["context"],
        )
        self.stdout.write(f"starting {server.model} ...")
        with server:
            self.stdout.write(f"serving {server.model_name} at {server.base_url}; Ctrl-C stops it")
            self.stdout.write("point Smallville at it with:")
            for key, value in server.env().items():
                self.stdout.write(f"  export {key}={value}")
            try:
                while server.process is not None and server.process.poll() is None:
                    time.sleep(1)
            except KeyboardInterrupt:
                self.stdout.write("stopping")
