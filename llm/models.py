"""The model-call ledger: one row per language-model call, and per-simulation usage."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from .dialects import DIALECTS


class ModelCall(models.Model):
    """One call through the port: what was asked, what came back, what it cost.

    The row is written when the call is admitted against the budget (so a call in flight
    already counts) and completed when it ends; `finished_at` is empty while in flight.
    Token counts come from `llm.tokens` for every backend, so costs compare; the
    server's own counts, when it reports them, are kept in `usage`.
    """

    simulation = models.ForeignKey(
        "world.Simulation",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="model_calls",
    )
    agent = models.ForeignKey(
        "world.Agent",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="model_calls",
    )
    agent_name = models.CharField(max_length=200, blank=True, default="")
    step = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="simulation step: the one a resident's step decides, else the log's",
    )
    decider = models.CharField(
        max_length=200,
        blank=True,
        default="",
        db_default="",
        help_text="the resident whose step made the call (a conversation's lines are its "
        "initiator's); empty for user requests and background jobs",
    )
    sim_time = models.DateTimeField(null=True, blank=True, help_text="sim time of the call")
    task = models.CharField(max_length=100)
    priority = models.PositiveSmallIntegerField(
        default=0,
        help_text="0: someone waits on it (a resident's step, a user); 1: background work "
        "(ratings sent ahead, reflections, evaluations)",
    )
    backend = models.CharField(max_length=20)
    model = models.CharField(max_length=200)
    prompt = models.TextField(help_text="the rendered prompt, as sent")
    raw_reply = models.TextField(blank=True, default="", help_text="the last reply, as received")
    output = models.JSONField(null=True, blank=True, help_text="the validated output")
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    usage = models.JSONField(default=dict, blank=True, help_text="token counts the server reported")
    latency_ms = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0)
    attempt_log = models.JSONField(
        default=list, blank=True, help_text="per attempt: outcome, error, latency, reply"
    )
    error = models.TextField(blank=True, default="", help_text="empty when the call succeeded")
    fallback = models.BooleanField(
        default=False,
        db_default=False,  # rows written by a worker of the previous release stay valid
        help_text="the model's output stayed invalid after its re-asks, and the task's "
        "fail-safe answer (the offline policy for the same inputs) was used",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    profile = models.ForeignKey(
        "llm.ModelProfile",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="calls",
        help_text="the model profile that answered; empty: the SMALLVILLE_LLM_* settings",
    )
    cost = models.DecimalField(
        max_digits=14,
        decimal_places=8,
        default=Decimal(0),
        db_default=Decimal(0),
        help_text="the call's tokens at its profile's prices",
    )
    # What makes a call the same as another (llm/answers.py): one row per key answers or
    # is in flight at a time, and every identical call of the simulation takes its answer.
    key = models.CharField(
        max_length=64,
        blank=True,
        default="",
        db_default="",
        help_text="hash of (resident, task, backend, model, seed, prompt); empty: never shared",
    )
    shared = models.BooleanField(
        default=False,
        db_default=False,
        help_text="in flight or answered: identical calls wait for it or take its answer "
        "(false once it failed or was settled as abandoned)",
    )
    holder = models.CharField(
        max_length=200,
        blank=True,
        default="",
        db_default="",
        help_text="the process that made the call (its lease says whether it lives)",
    )
    ahead = models.BooleanField(
        default=False,
        db_default=False,
        help_text="sent ahead of the step that needs it (llm_send_ahead)",
    )
    takes = models.PositiveIntegerField(
        default=0, db_default=0, help_text="how many later identical calls took this answer"
    )
    taken_at = models.DateTimeField(null=True, blank=True, help_text="when it was first taken")
    taken_step = models.PositiveIntegerField(
        null=True, blank=True, help_text="the step whose call first took it"
    )
    taken_by = models.CharField(
        max_length=200,
        blank=True,
        default="",
        db_default="",
        help_text="the resident whose step first took it (empty: a user or background job)",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["simulation", "task"]),
            models.Index(fields=["simulation", "agent_name"]),
            models.Index(fields=["simulation", "created_at"]),
            # The calls in flight, for the watchdog's settlement of abandoned ones.
            models.Index(
                fields=["created_at"],
                name="llm_modelcall_in_flight",
                condition=models.Q(finished_at__isnull=True),
            ),
        ]
        constraints = [
            # The claim of a call: whoever inserts the row makes the call, the others wait.
            models.UniqueConstraint(
                fields=["simulation", "key"],
                condition=models.Q(shared=True),
                name="llm_modelcall_one_shared_answer",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task} #{self.pk} ({self.backend})"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class ModelUsage(models.Model):
    """A simulation's running totals, checked against its budget by conditional update."""

    simulation = models.OneToOneField(
        "world.Simulation", primary_key=True, on_delete=models.CASCADE, related_name="model_usage"
    )
    calls = models.PositiveIntegerField(default=0)
    tokens = models.PositiveBigIntegerField(default=0)
    cost = models.DecimalField(
        max_digits=16, decimal_places=8, default=Decimal(0), db_default=Decimal(0)
    )
    budget_money = models.DecimalField(
        max_digits=16,
        decimal_places=4,
        null=True,
        blank=True,
        help_text="no call is admitted once `cost` reaches it; empty: no money budget",
    )

    def __str__(self) -> str:
        return f"simulation {self.simulation_id}: {self.calls} calls, {self.tokens} tokens"


class ModelQuota(models.Model):
    """A user's own limits per rolling day over all its simulations: model calls (without
    one, SMALLVILLE_USER_DAILY_CALLS applies; no limit when that is unset) and money."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="model_quota"
    )
    calls_per_day = models.PositiveIntegerField(
        null=True, blank=True, help_text="empty: no limit for this user"
    )
    money_per_day = models.DecimalField(
        max_digits=16,
        decimal_places=4,
        null=True,
        blank=True,
        help_text="what the user's simulations may spend on model calls per rolling day, at "
        "their profiles' prices; empty: no limit in money",
    )

    def __str__(self) -> str:
        calls = f"{self.calls_per_day or 'no limit'} calls"
        money = f", {self.money_per_day} in money" if self.money_per_day is not None else ""
        return f"{self.user}: {calls}{money} a day"


class ModelProfile(models.Model):
    """A model a simulation can run on: where it is served, how it is asked, what it costs.

    The key is never stored: `api_key_env` names the environment variable of the worker
    processes that holds it. A profile is its owner's, or everyone's when staff share it.
    """

    BACKENDS = [("openai", "OpenAI-compatible server"), ("offline", "offline stand-in")]
    DIALECTS = [(name, name) for name in ("auto", *DIALECTS)]

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="model_profiles"
    )
    name = models.CharField(max_length=100)
    shared = models.BooleanField(default=False, help_text="usable by every user (staff only)")
    backend = models.CharField(max_length=20, choices=BACKENDS, default="openai")
    base_url = models.URLField(blank=True, default="", help_text="the server's /v1 URL")
    model = models.CharField(max_length=200, blank=True, default="")
    api_key_env = models.CharField(
        max_length=100,
        blank=True,
        default="",
        validators=[RegexValidator(r"^[A-Z_][A-Z0-9_]*$", "an environment variable's name")],
        help_text="the NAME of the environment variable holding the key; empty: no key",
    )
    dialect = models.CharField(max_length=30, choices=DIALECTS, default="auto")
    context_tokens = models.PositiveIntegerField(default=0, help_text="0: ask the server")
    server_slots = models.PositiveIntegerField(default=0, help_text="0: no shared limit")
    priority = models.BooleanField(default=False, help_text="send each call's priority (vLLM)")
    send_task = models.BooleanField(
        default=False, help_text="send each call's task and inputs (the policy server)"
    )
    temperature = models.FloatField(null=True, blank=True, help_text="empty: the server's")
    input_price = models.DecimalField(
        max_digits=12, decimal_places=4, default=Decimal(0), help_text="per million input tokens"
    )
    output_price = models.DecimalField(
        max_digits=12, decimal_places=4, default=Decimal(0), help_text="per million output tokens"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="llm_profile_owner_name"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.backend}: {self.model or '-'})"


class ModelRoute(models.Model):
    """Which profile a simulation's calls of a task group go to; group "residents" is the
    default for all its calls. Without a route, the SMALLVILLE_LLM_* settings answer."""

    simulation = models.ForeignKey(
        "world.Simulation", on_delete=models.CASCADE, related_name="model_routes"
    )
    group = models.CharField(max_length=50)
    profile = models.ForeignKey(ModelProfile, on_delete=models.PROTECT, related_name="routes")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["simulation", "group"], name="llm_route_one_per_group"),
        ]

    def __str__(self) -> str:
        return f"simulation {self.simulation_id}: {self.group} -> {self.profile_id}"
