"""What the runtime stores while it runs a simulation, none of it in the log: residents'
decisions staged until the step commits (`Decision`), the decisions of a group a worker
made for a spread run (`GroupDecision`), the commits of residents running ahead held
until the step is whole (`StagedCommit`); and who plays which resident (`Player`)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from world.models import Agent, Simulation


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


class GroupDecision(models.Model):
    """The decisions of one group of residents, made by a worker for the engine that runs
    residents ahead when it spreads groups over workers (runtime.engine.ahead.spread),
    held until the run commits them.

    Keyed by the group's `token` (one per group the run started): a group decided twice
    is stored once, and a decision of a group the run gave up on is never read.
    `decisions` is `[{"agent": name, "events": [drafts]}, ...]` in name order."""

    simulation = models.ForeignKey(
        Simulation, on_delete=models.CASCADE, related_name="group_decisions"
    )
    token = models.CharField(max_length=64, unique=True)
    step = models.PositiveIntegerField()
    decisions = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["simulation", "step", "id"]

    def __str__(self) -> str:
        return f"group {self.token} @ {self.step}"


class StagedCommit(models.Model):
    """One group's commit of one step under the engine that runs residents ahead
    (runtime.engine.ahead): applied to the projections already, held here until every
    resident has committed the step, then appended to the log in the barrier's order.

    `events` are the drafts with their place in that order (`key`: [section, agent])."""

    simulation = models.ForeignKey(
        Simulation, on_delete=models.CASCADE, related_name="staged_commits"
    )
    step = models.PositiveIntegerField()
    agents = models.JSONField(default=list, help_text="the residents of the group, by name")
    events = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["simulation", "step", "id"]
        indexes = [models.Index(fields=["simulation", "step"], name="staged_commit_step")]

    def __str__(self) -> str:
        return f"{', '.join(self.agents)} @ {self.step}"


class Player(models.Model):
    """A person in the town: the user who plays a resident, as a newcomer they brought in
    or one they took over (runtime/controls/players.py). The owner may move and speak for
    any resident; anyone else only for those they play."""

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="players"
    )
    agent = models.OneToOneField(Agent, on_delete=models.CASCADE, related_name="player")
    newcomer = models.BooleanField(help_text="arrived as a newcomer (leaving leaves the town)")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["simulation", "joined_at", "id"]

    def __str__(self) -> str:
        return f"{self.user} as {self.agent.name}"
