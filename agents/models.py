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
