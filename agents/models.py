"""What the agents layer stores beside the residents (`world.Agent`): plan trees,
commitments, object states, conversations, interviews and scenarios, all projections of
the log."""

from __future__ import annotations

from django.db import models

from world.models import Agent, Simulation


class PlanLevel(models.TextChoices):
    DAY = "day"
    HOUR = "hour"
    ACTION = "action"


class PlanItem(models.Model):
    """One node of an agent's plan tree: day (broad strokes) > hour > 5-15 minute action."""

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="plans")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="plan_items")
    number = models.PositiveIntegerField(help_text="per agent, in log order")
    level = models.CharField(max_length=10, choices=PlanLevel.choices)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    description = models.CharField(max_length=500)
    address = models.CharField(max_length=600, blank=True, default="")
    start = models.DateTimeField(help_text="sim time")
    duration_minutes = models.PositiveIntegerField()
    emoji = models.CharField(max_length=20, blank=True, default="")
    subject = models.CharField(max_length=300, blank=True, default="")
    predicate = models.CharField(max_length=300, blank=True, default="")
    object = models.CharField(max_length=300, blank=True, default="")
    superseded = models.BooleanField(default=False, help_text="dropped by a re-plan")
    source_memory = models.PositiveIntegerField(
        null=True, blank=True, help_text="the number of the memory it came from (a commitment)"
    )

    class Meta:
        ordering = ["agent", "number"]
        constraints = [
            models.UniqueConstraint(fields=["agent", "number"], name="plan_item_unique_number")
        ]
        indexes = [
            models.Index(fields=["agent", "level", "start"]),
            # The few rows that keep a commitment: asked at every step of a committed
            # resident (`plan_citations_by_agent`).
            models.Index(
                fields=["agent", "source_memory"],
                condition=models.Q(source_memory__isnull=False, superseded=False),
                name="plan_item_cites",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.start:%H:%M} {self.description}"


class Commitment(models.Model):
    """Something an agent intends to do at a time and place (a party it will attend), made
    from what it heard or thought; planning puts it in the plan of its day, cited to the
    memory it came from."""

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="commitments")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="commitments")
    number = models.PositiveIntegerField(help_text="per agent, in log order")
    what = models.CharField(max_length=300)
    address = models.CharField(max_length=600)
    start = models.DateTimeField(help_text="sim time")
    end = models.DateTimeField(help_text="sim time")
    memory = models.PositiveIntegerField(
        null=True, blank=True, help_text="the number of the thought memory it came from"
    )
    step = models.PositiveIntegerField(help_text="when it was made")

    class Meta:
        ordering = ["agent", "number"]
        constraints = [
            models.UniqueConstraint(fields=["agent", "number"], name="commitment_unique_number")
        ]
        indexes = [models.Index(fields=["agent", "start"])]

    def __str__(self) -> str:
        return f"{self.agent}: {self.what} at {self.start:%Y-%m-%d %H:%M}"


class ObjectState(models.Model):
    """What a game object is doing ("brewing coffee"); absent means idle."""

    simulation = models.ForeignKey(
        Simulation, on_delete=models.CASCADE, related_name="object_states"
    )
    address = models.CharField(max_length=600)
    state = models.CharField(max_length=300)
    by_agent = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["simulation", "address"]
        constraints = [
            models.UniqueConstraint(
                fields=["simulation", "address"], name="object_state_unique_address"
            )
        ]

    def __str__(self) -> str:
        return f"{self.address}: {self.state}"


class Conversation(models.Model):
    """A conversation between residents (or a resident and a user), line by line."""

    simulation = models.ForeignKey(
        Simulation, on_delete=models.CASCADE, related_name="conversations"
    )
    number = models.PositiveIntegerField(help_text="per simulation, in log order")
    participants = models.JSONField(help_text="[initiator, partner]")
    lines = models.JSONField(default=list, help_text='[{"speaker": name, "text": line}, ...]')
    summary = models.TextField(blank=True, default="")
    address = models.CharField(max_length=600, blank=True, default="")
    step = models.PositiveIntegerField()
    started = models.DateTimeField(help_text="sim time")

    class Meta:
        ordering = ["simulation", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["simulation", "number"], name="conversation_unique_number"
            )
        ]

    def __str__(self) -> str:
        return " & ".join(self.participants)


class Interview(models.Model):
    """A question a user put to an agent, as someone they name, and its answer."""

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="interviews")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="interviews")
    number = models.PositiveIntegerField(help_text="per simulation, in log order")
    session = models.CharField(max_length=64, help_text="groups the turns of one interview")
    persona = models.CharField(max_length=200, help_text='who asks, e.g. "a news reporter"')
    question = models.TextField()
    answer = models.TextField()
    remembered = models.BooleanField(default=False, help_text="kept as the agent's memory")
    step = models.PositiveIntegerField()
    sim_time = models.DateTimeField()

    class Meta:
        ordering = ["simulation", "number"]
        constraints = [
            models.UniqueConstraint(fields=["simulation", "number"], name="interview_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.persona} -> {self.agent}: {self.question[:40]}"


class ScenarioStatus(models.TextChoices):
    PENDING = "pending"
    APPLIED = "applied"
    CANCELLED = "cancelled"


class Scenario(models.Model):
    """A timed intervention (runtime/scenarios.py): at `step` the engine applies it as log
    events. The row is the projection of `scenario.*` events, so replay and fork keep it."""

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="scenarios")
    number = models.PositiveIntegerField(help_text="per simulation, in log order")
    kind = models.CharField(max_length=20)
    step = models.PositiveIntegerField(help_text="the step it is applied at the start of")
    at = models.DateTimeField(help_text="sim time")
    params = models.JSONField(default=dict, help_text="what it says, to whom, where")
    status = models.CharField(
        max_length=10, choices=ScenarioStatus.choices, default=ScenarioStatus.PENDING
    )
    added_step = models.PositiveIntegerField(help_text="the step it was added at")
    applied_step = models.PositiveIntegerField(null=True, blank=True)
    outcome = models.TextField(blank=True, default="", help_text="why it did nothing, if so")
    recipients = models.JSONField(
        default=list, blank=True, help_text="the residents it reached, once applied"
    )

    class Meta:
        ordering = ["simulation", "number"]
        constraints = [
            models.UniqueConstraint(fields=["simulation", "number"], name="scenario_unique_number")
        ]
        indexes = [models.Index(fields=["simulation", "status", "step"], name="scenario_due")]

    def __str__(self) -> str:
        return f"{self.kind} @ {self.step}"
