"""The model-call ledger: one row per language-model call, and per-simulation usage."""

from __future__ import annotations

from django.conf import settings
from django.db import models


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

    def __str__(self) -> str:
        return f"simulation {self.simulation_id}: {self.calls} calls, {self.tokens} tokens"


class ModelQuota(models.Model):
    """A user's own limit of model calls per rolling day, over all its simulations; without
    one, SMALLVILLE_USER_DAILY_CALLS applies (no limit when that is unset)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="model_quota"
    )
    calls_per_day = models.PositiveIntegerField(
        null=True, blank=True, help_text="empty: no limit for this user"
    )

    def __str__(self) -> str:
        return f"{self.user}: {self.calls_per_day or 'no limit'} calls a day"
