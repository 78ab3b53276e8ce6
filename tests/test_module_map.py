"""The module-to-test map (tests/module_map.py): every domain module with behaviour is
imported by a test module, or is an exception below with the reason. An exception that a
test now imports, or whose module is gone, fails too: delete its line."""

from __future__ import annotations

from tests.module_map import module_map

_HTTP = (
    "served over HTTP: tests/api, tests/runtime/controls, tests/memories/test_api.py call its URLs"
)
_ADMIN = "the admin site over HTTP: tests/*/test_admin.py and tests/browser/test_admin.py"
_PROJECTION = (
    "a projection, applied by world.eventlog; rebuild equal to live in "
    "tests/memories/test_rebuild.py and tests/api/test_replay.py"
)
_EXPERIMENT = (
    "run over HTTP with real workers: tests/experiments (test_definition.py, test_worker.py, "
    "test_command.py)"
)
EXCEPTIONS: dict[str, str] = {
    "world.admin": _ADMIN,
    "runtime.admin": _ADMIN,
    "runtime.engine.ahead.deciding": (
        "the ahead run's groups decided in process, by every whole run of "
        "tests/runtime/engine/ahead (test_run.py: the log equals the barrier's)"
    ),
    "api.controls.serializers": _HTTP,
    "api.play.serializers": _HTTP,
    "api.play.views": _HTTP,
    "llm.admin": _ADMIN,
    "memories.admin": _ADMIN,
    "agents.admin": _ADMIN,
    "agents.reflection.admin": _ADMIN,
    "evaluations.admin": _ADMIN,
    "experiments.admin": _ADMIN,
    "world.projections": _PROJECTION,
    "memories.projections": _PROJECTION,
    "agents.projections.records": _PROJECTION,
    "agents.projections.residents": _PROJECTION,
    "agents.projections.talk": _PROJECTION,
    "world.rows": "the engine's fixed-SQL reads of every step; every engine test reads through it",
    "llm.answers": "behind llm.port and llm.services: tests/llm/test_shared_answers.py",
    "kernel.auth_failures": (
        "failed logins and wrong tokens counted per client, over HTTP: "
        "tests/runtime/controls/test_edges.py"
    ),
    "kernel.limits": "a route's body limit, over HTTP: tests/runtime/controls/test_limits.py",
    "kernel.rates": (
        "the throttles' counts, over HTTP and the production server: "
        "tests/runtime/controls/test_production_server.py, tests/runtime/controls/test_limits.py"
    ),
    "llm.failsafe": (
        "the fail-safe answer behind llm.port: tests/llm/test_openai_backend.py (invalid "
        "replies past the re-asks), tests/runtime/controls/test_faults.py"
    ),
    "llm.observed": (
        "behind llm.port: a call's metrics and span, read back by tests/observability "
        "(test_metrics.py through Prometheus, test_traces.py through an OTLP receiver)"
    ),
    "runtime.engine.observed": (
        "behind both engines' commits: steps counted, read back through Prometheus in "
        "tests/observability/test_metrics.py and logged in test_logs.py"
    ),
    "llm.management.commands.model_server": (
        "serves a local GGUF model: tests/local_model start it as a process"
    ),
    "agents.selectors": "read by the API's resident views over HTTP (tests/api/test_residents.py)",
    "agents.offline.insights": "tested through reflection (tests/agents/reflection)",
    "runtime.engine.ahead.run": (
        "the ahead engine's loop (threads, groups, commits), run whole through "
        "runtime.engine.run by tests/runtime/engine/ahead/test_run.py; its parts "
        "(state, staging) have unit tests"
    ),
    "evaluations.interviews": "run by evaluations.runner (tests/evaluations/test_runner.py)",
    "evaluations.report": "written by evaluations.runner (tests/evaluations/test_runner.py)",
    "evaluations.selectors": "read by the evaluation views: tests/evaluations/test_api.py",
    "experiments.definition": _EXPERIMENT,
    "experiments.measures": _EXPERIMENT,
    "experiments.receivers": _EXPERIMENT,
    "experiments.report": _EXPERIMENT,
    "experiments.selectors": _EXPERIMENT,
    "experiments.services": _EXPERIMENT,
    "experiments.tasks": _EXPERIMENT,
    "api.authentication": _HTTP,
    "api.bases.serializers": _HTTP,
    "api.bases.views": _HTTP,
    "api.cognition.serializers": _HTTP,
    "api.cognition.views": _HTTP,
    "api.controls.views": _HTTP,
    "api.evaluations.views": _HTTP,
    "api.experiments.serializers": _HTTP,
    "api.experiments.views": _HTTP,
    "api.facts.serializers": _HTTP,
    "api.facts.views": _HTTP,
    "api.interviews.views": _HTTP,
    "api.ledger.views": _HTTP,
    "api.memories.serializers": _HTTP,
    "api.memories.views": _HTTP,
    "api.profiles.views": _HTTP,
    "api.reflections.serializers": _HTTP,
    "api.reflections.views": _HTTP,
    "api.replay.serializers": _HTTP,
    "api.replay.views": _HTTP,
    "api.residents.views": _HTTP,
    "api.scenarios.views": _HTTP,
    "api.simulations.serializers": _HTTP,
    "api.simulations.views": _HTTP,
    "api.tokens.serializers": _HTTP,
    "api.tokens.views": _HTTP,
    "api.towns.serializers": _HTTP,
    "api.towns.views": _HTTP,
    "api.webhooks.views": _HTTP,
    "api.fields": _HTTP,
    "api.filters": _HTTP,
    "api.lookups": _HTTP,
    "api.middleware": _HTTP,
    "api.pagination": _HTTP,
    "api.problems": _HTTP,
    "api.parsers": _HTTP,
    "api.schema": _HTTP,
    "api.throttles": _HTTP,
    "agents.bases.admin": "the base admin over HTTP: tests/bases/test_bases_admin.py",
    "agents.bases.reference": "the shipped bases, loaded by every simulation's factory",
    "agents.bases.selectors": "bases read over REST: tests/bases/test_bases_api.py",
    "integration.admin": _ADMIN,
    "integration.webhooks.admin": _ADMIN,
    "integration.selectors": "read by the token views over HTTP: tests/integration/test_tokens.py",
    "integration.webhooks.selectors": "read by the webhook views: tests/api/test_webhooks.py",
    "integration.webhooks.tasks": (
        "run by a Celery worker process: tests/integration/webhooks/test_delivery.py"
    ),
    "evaluations.passes": "an evaluation's pass, run through evaluations.runner's tests",
    "llm.profile_check": "a profile's check over REST: tests/llm/test_profiles.py",
    "llm.profiles": "routing, through llm_run in tests/llm/test_routing_money.py",
    "web.simulation_views": "a new simulation in a browser: tests/browser/test_new_simulation.py",
    "web.token_views": "the tokens page in a browser: tests/browser/test_tokens.py",
    "web.viewer_views": "the viewer's pages over HTTP in a browser: tests/browser",
    "web.views": "the landing and account pages over HTTP in a browser: tests/browser",
    "runtime.engine.ahead.reflecting": (
        "the reflection jobs a commit waits for, run whole by "
        "tests/runtime/engine/ahead/test_run.py (reflections while residents run ahead)"
    ),
}


def test_every_module_with_behaviour_is_imported_by_a_test_or_excepted() -> None:
    untested = [name for name, tests in module_map().items() if not tests]
    assert sorted(set(untested) - set(EXCEPTIONS)) == []


def test_every_exception_is_still_untested_and_still_there() -> None:
    mapping = module_map()
    assert [name for name in EXCEPTIONS if mapping.get(name, ["(gone)"])] == []
