"""The admin's screens of evaluations: browsable, read-only (a done evaluation is immutable)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Evaluation, InterviewAnswer


class _ReadOnly(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Evaluation)
class EvaluationAdmin(_ReadOnly):
    list_display = (
        "simulation",
        "number",
        "step",
        "subject",
        "status",
        "done",
        "total",
        "created_at",
    )
    list_filter = ("status",)


@admin.register(InterviewAnswer)
class InterviewAnswerAdmin(_ReadOnly):
    list_display = ("evaluation", "agent", "category", "question_number", "condition")
    list_filter = ("condition", "category")
