"""Reflection jobs: staging rows between a reflection's request and the commit that logs it.

Like `runtime.Decision`, a job is not a projection: the log holds `reflection.requested`
and, at the due step, the reflection memories and `reflection.done`. The row carries the
work in between (status, attempts, the computed event drafts) and stays afterwards as
an operational record (which queue ran it, which citations were dropped, errors).
"""

from __future__ import annotations

from django.db import models

from world.models import Simulation


class JobStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class ReflectionJob(models.Model):
    """One reflection of one agent: requested at `requested_step`, logged at `due_step`.

    The job reads the state committed at `requested_step` (nothing else is committed
    before its result is), and `tick_commit(step=due_step - 1)` appends its `result`.
    """

    simulation = models.ForeignKey(
        Simulation, on_delete=models.CASCADE, related_name="reflection_jobs"
    )
    agent = models.CharField(max_length=200)
    requested_step = models.PositiveIntegerField(help_text="step of the reflection.requested event")
    due_step = models.PositiveIntegerField(help_text="step at which the result enters the log")
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    questions = models.JSONField(default=list, blank=True, help_text="the focal questions")
    result = models.JSONField(
        default=list, blank=True, help_text="event drafts the due commit appends"
    )
    dropped_citations = models.JSONField(
        default=list,
        blank=True,
        help_text="citations of statements that were not shown, and insights left without any",
    )
    error = models.TextField(blank=True, default="", help_text="the last attempt's error")
    queue = models.CharField(
        max_length=200, blank=True, default="", help_text="the queue that delivered the last run"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True, help_text="last handed to a worker")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["simulation", "due_step", "agent"]
        constraints = [
            models.UniqueConstraint(
                fields=["simulation", "agent", "due_step"], name="reflection_job_unique_key"
            )
        ]
        indexes = [models.Index(fields=["simulation", "status"])]

    def __str__(self) -> str:
        return f"{self.agent} reflects @ {self.due_step}"
