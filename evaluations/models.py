"""An evaluation of a simulation at a step, and its units of work (one row each, idempotent)."""

from __future__ import annotations

from django.db import models

from llm.models import ModelProfile
from world.models import Agent, Simulation

from .conditions import Condition


class EvaluationKind(models.TextChoices):
    INTERVIEWS = "interviews"  # interviews under the conditions, judged and ranked
    DIFFUSION = "diffusion"
    RELATIONSHIPS = "relationships"
    COORDINATION = "coordination"
    HALLUCINATION = "hallucination"
    COMPARISON = "comparison"


class EvaluationStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"  # immutable from here on
    FAILED = "failed"


class Evaluation(models.Model):
    """The paper's evaluation (sections 6 and 7) of one simulation at one step."""

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="evaluations")
    number = models.PositiveIntegerField()  # 1, 2, ... within the simulation
    step = models.PositiveIntegerField()
    kinds = models.JSONField(default=list)
    conditions = models.JSONField(default=list)
    facts = models.JSONField(default=list)  # the named facts whose diffusion is measured
    events = models.JSONField(default=list)  # the named events whose attendance is measured
    questions = models.JSONField(default=list)  # the interview's two on the town's news
    compared = models.ManyToManyField(Simulation, blank=True, related_name="compared_in")
    # The judge's model, over the simulation's routes (llm/profiles.py); null: the routes'.
    judge_profile = models.ForeignKey(
        ModelProfile,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="judged_evaluations",
        help_text="the profile the believability judge runs on; empty: the simulation's route",
    )
    # What is measured, fixed when the run starts: the simulation itself when it stands at
    # `step` and is not running, else its fork at `step` (evaluations.services).
    subject = models.ForeignKey(
        Simulation,
        null=True,
        blank=True,
        on_delete=models.RESTRICT,
        related_name="measured_in",
        help_text="the simulation measured: this one at its step, or its fork at the step",
    )
    status = models.CharField(
        max_length=16, choices=EvaluationStatus.choices, default=EvaluationStatus.PENDING
    )
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    result = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["simulation", "number"], name="evaluation_number_per_simulation"
            ),
            models.CheckConstraint(
                condition=models.Q(done__lte=models.F("total")), name="evaluation_done_le_total"
            ),
        ]

    def __str__(self) -> str:
        return f"evaluation {self.number} of simulation {self.simulation_id} at step {self.step}"


class InterviewAnswer(models.Model):
    """One resident's answer to one question under one condition, with what it recalled."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="answers")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="evaluation_answers")
    category = models.CharField(max_length=32)
    question_number = models.PositiveSmallIntegerField()
    question = models.TextField()
    condition = models.CharField(max_length=32, choices=[*Condition.choices, ("human", "human")])
    answer = models.TextField()
    memories = models.JSONField(default=list)  # numbers of the memories retrieved
    judged_rank = models.PositiveSmallIntegerField(null=True, blank=True)
    # The judge's ranking of this question is its task's fail-safe answer (the offline
    # rule), not the model's: the model's replies stayed invalid after the re-asks.
    judge_fallback = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "agent", "question_number", "condition"],
                name="one_answer_per_unit",
            )
        ]

    def __str__(self) -> str:
        return f"{self.agent_id} q{self.question_number} ({self.condition})"
