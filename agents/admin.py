"""Admin of residents: read-only, since every field is a projection of the event log."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from world.admin import ModelAdmin

from .models import Agent


@admin.register(Agent)
class AgentAdmin(ModelAdmin[Agent]):
    list_display = ["name", "simulation", "tile"]
    list_filter = ["simulation"]
    search_fields = ["name"]
    list_select_related = ["simulation"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Agent | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Agent | None = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Agent]:
        return super().get_queryset(request).defer("spatial_memory", "seed_statements")

    @admin.display(description="tile")
    def tile(self, agent: Agent) -> str:
        return f"({agent.tile_x}, {agent.tile_y})"
