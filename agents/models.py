"""Residents of a simulation: identity, parameters and current state (a projection)."""

from __future__ import annotations

from django.db import models

from world.models import Simulation


class Agent(models.Model):
    """A generative agent; every field is derived from the simulation's event log."""

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="agents")
    name = models.CharField(max_length=200)
    first_name = models.CharField(max_length=100)
    last_name = models.CharField(max_length=100)
    age = models.PositiveIntegerField(null=True, blank=True)
    innate = models.TextField(blank=True, default="", help_text="innate traits")
    learned = models.TextField(blank=True, default="")
    currently = models.TextField(blank=True, default="")
    lifestyle = models.TextField(blank=True, default="")
    living_area = models.CharField(max_length=600, blank=True, default="")
    daily_plan_requirement = models.TextField(blank=True, default="")
    # Parameters of perception, retrieval and reflection (the persona's values).
    vision_radius = models.PositiveIntegerField(default=8)
    attention_bandwidth = models.PositiveIntegerField(default=8)
    retention = models.PositiveIntegerField(default=8)
    recency_decay = models.FloatField(default=0.995)
    reflection_threshold = models.PositiveIntegerField(default=150)
    # State.
    tile_x = models.IntegerField()
    tile_y = models.IntegerField()
    spatial_memory = models.JSONField(
        default=dict, help_text="places the agent knows: {world: {sector: {arena: [objects]}}}"
    )
    spatial_version = models.PositiveIntegerField(
        default=0, help_text="counts changes of the spatial memory (workers cache it by this)"
    )
    seed_statements = models.JSONField(default=list, help_text="whisper CSV, one per memory")
    user_controlled = models.BooleanField(default=False)
    # What the agent is doing (set by cognition through events).
    destination = models.CharField(max_length=600, blank=True, default="")
    path = models.JSONField(default=list, blank=True, help_text="tiles still to walk")
    action = models.CharField(max_length=400, blank=True, default="")
    busy_until_step = models.PositiveIntegerField(default=0)
    recent_observations = models.JSONField(
        default=list, blank=True, help_text="the last `retention` things perceived"
    )
    action_emoji = models.CharField(max_length=20, blank=True, default="")
    action_address = models.CharField(max_length=600, blank=True, default="")
    action_spo = models.JSONField(
        default=list, blank=True, help_text="(subject, predicate, object) of the action"
    )
    action_start_step = models.PositiveIntegerField(default=0)
    chatting_with = models.CharField(max_length=200, blank=True, default="")
    chat_cooldowns = models.JSONField(
        default=dict, blank=True, help_text="partner -> step before which they do not talk again"
    )
    # Cognition's cached reads.
    summary = models.TextField(blank=True, default="", help_text="summary description")
    summary_date = models.DateField(null=True, blank=True)
    plan_date = models.DateField(null=True, blank=True, help_text="sim day of the day plan")
    # Reflection trigger: importance of observations since the last reflection.
    pending_thought = models.TextField(
        blank=True, default="", help_text="an inner-voice statement not yet acted on"
    )
    importance_since_reflection = models.PositiveIntegerField(default=0)
    reflection_due_step = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["simulation", "name"]
        constraints = [
            models.UniqueConstraint(fields=["simulation", "name"], name="agent_unique_name")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def tile(self) -> tuple[int, int]:
        return self.tile_x, self.tile_y


class Decision(models.Model):
    """An agent's decision for one step, staged until the tick commits.

    Keyed (simulation, step, agent): a redelivered agent-step task finds its row and does
    nothing twice. `events` holds the event drafts the commit will append.
    """

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="decisions")
    step = models.PositiveIntegerField()
    agent = models.CharField(max_length=200)
    events = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["simulation", "step", "agent"]
        constraints = [
            models.UniqueConstraint(
                fields=["simulation", "step", "agent"], name="decision_unique_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.agent} @ {self.step}"


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

    class Meta:
        ordering = ["agent", "number"]
        constraints = [
            models.UniqueConstraint(fields=["agent", "number"], name="plan_item_unique_number")
        ]
        indexes = [models.Index(fields=["agent", "level", "start"])]

    def __str__(self) -> str:
        return f"{self.start:%H:%M} {self.description}"


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
