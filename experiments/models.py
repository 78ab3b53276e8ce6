"""An experiment (a definition: start, variants, seeds, span, measures) and its runs, one
per variant and seed, each a simulation made and run on the workers."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from world.models import Simulation


class ExperimentStatus(models.TextChoices):
    PENDING = "pending"  # defined, not started
    RUNNING = "running"
    PAUSED = "paused"
    CANCELLED = "cancelled"
    DONE = "done"  # every run ended (done or failed); the results are computed


class RunStatus(models.TextChoices):
    PENDING = "pending"
    MAKING = "making"  # its simulation is being made (created or forked, the variant applied)
    RUNNING = "running"
    DONE = "done"  # reached the span's end and measured
    FAILED = "failed"
    CANCELLED = "cancelled"


ACTIVE = (RunStatus.MAKING, RunStatus.RUNNING)
ENDED = (RunStatus.DONE, RunStatus.FAILED, RunStatus.CANCELLED)


class Experiment(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="experiments"
    )
    name = models.CharField(max_length=200)
    definition = models.JSONField(help_text="as checked (experiments.definition)")
    status = models.CharField(
        max_length=16, choices=ExperimentStatus.choices, default=ExperimentStatus.PENDING
    )
    status_reason = models.TextField(blank=True, default="")
    # Per variant, the base its runs start from: the start's, or one made for a variant
    # that edits seed memories or scenarios (a base of the owner's, so a run can be
    # repeated by hand). Set when the experiment starts.
    variant_bases = models.JSONField(default=list, blank=True)
    results = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} (experiment #{self.pk})"


class ExperimentRun(models.Model):
    """One variant with one seed: the simulation it made, how it stands, what it measured."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="runs")
    variant = models.PositiveSmallIntegerField(help_text="index into the definition's variants")
    seed = models.BigIntegerField()
    simulation = models.ForeignKey(
        Simulation, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    target_step = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.PENDING)
    reason = models.TextField(blank=True, default="")
    # The process making its simulation (world.leases.process_holder): a dead holder's run
    # is taken over by the next advance.
    holder = models.CharField(max_length=200, blank=True, default="")
    measures = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["variant", "seed"]
        constraints = [
            models.UniqueConstraint(
                fields=["experiment", "variant", "seed"], name="one_run_per_variant_and_seed"
            )
        ]

    def __str__(self) -> str:
        return f"experiment {self.experiment_id}, variant {self.variant}, seed {self.seed}"

    @property
    def label(self) -> str:
        """A name for the run's simulation, unique to the run: found again after a crash."""
        return f"experiment {self.experiment_id} run {self.pk}"
