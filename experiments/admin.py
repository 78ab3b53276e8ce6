"""The admin's screens of experiments: their progress and runs at a glance, read-only
(experiments change through their services: the API, `manage.py experiment`), with
actions to pause, resume and cancel."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from .models import Experiment, ExperimentRun
from .selectors import experiment_progress
from .services import ExperimentConflict, experiment_cancel, experiment_pause, experiment_resume


class RunInline(admin.TabularInline):  # type: ignore[type-arg]
    model = ExperimentRun
    fields = ("variant_name", "seed", "status", "simulation_link", "step", "reason")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[ExperimentRun]:
        # Each row shows its variant's name and its simulation's step: one query for all.
        return super().get_queryset(request).select_related("experiment", "simulation")

    @admin.display(description="variant")
    def variant_name(self, run: ExperimentRun) -> str:
        return str(run.experiment.definition["variants"][run.variant]["name"])

    @admin.display(description="simulation")
    def simulation_link(self, run: ExperimentRun) -> str:
        if run.simulation_id is None:
            return "-"
        url = reverse("viewer", args=[run.simulation_id])
        return format_html('<a href="{}">#{} in the viewer</a>', url, run.simulation_id)

    @admin.display(description="step")
    def step(self, run: ExperimentRun) -> str:
        if run.simulation is None:
            return "-"
        return f"{run.simulation.step} of {run.target_step}"


def _each(request: HttpRequest, experiments: QuerySet[Experiment], control: Any, verb: str) -> None:
    for experiment in experiments:
        try:
            control(experiment=experiment)
            messages.success(request, f"{experiment}: {verb}")
        except ExperimentConflict as exc:
            messages.warning(request, str(exc))


@admin.register(Experiment)
class ExperimentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "owner", "status", "progress", "created_at", "finished_at")
    list_filter = ("status",)
    search_fields = ("name", "owner__username")
    readonly_fields = (
        "owner",
        "name",
        "status",
        "status_reason",
        "progress",
        "definition",
        "variant_bases",
        "results",
        "created_at",
        "started_at",
        "finished_at",
    )
    fields = readonly_fields
    inlines = [RunInline]
    actions = ["pause", "resume", "cancel"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="progress")
    def progress(self, experiment: Experiment) -> str:
        p = experiment_progress(experiment=experiment)
        left = f", about {p.seconds_left / 60:.0f} min left" if p.seconds_left else ""
        return (
            f"{p.by_status['done']} of {p.runs} runs done ({p.by_status['failed']} failed), "
            f"{p.steps_done:,} of {p.steps_total:,} steps{left}"
        )

    @admin.action(description="Pause the selected experiments")
    def pause(self, request: HttpRequest, queryset: QuerySet[Experiment]) -> None:
        _each(request, queryset, experiment_pause, "paused")

    @admin.action(description="Resume the selected experiments")
    def resume(self, request: HttpRequest, queryset: QuerySet[Experiment]) -> None:
        _each(request, queryset, experiment_resume, "resumed")

    @admin.action(description="Cancel the selected experiments")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Experiment]) -> None:
        _each(request, queryset, experiment_cancel, "cancelled")
