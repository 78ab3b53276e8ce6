"""The admin of who plays whom: people in the towns (the runtime's staging tables are
internal and have no admin)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.http import HttpRequest

from .models import Player

if TYPE_CHECKING:
    from django.contrib.admin import ModelAdmin as ModelAdmin
else:

    class ModelAdmin(admin.ModelAdmin):
        """ModelAdmin[Model] at run time too, as django-stubs spells it for mypy."""

        def __class_getitem__(cls, item):
            return cls


@admin.register(Player)
class PlayerAdmin(ModelAdmin[Player]):
    """Read-only: a person joins and leaves through the API or the viewer, which write the
    town's events; deleting a row here would leave its resident user-controlled."""

    list_display = ["user", "agent", "simulation", "newcomer", "joined_at"]
    list_filter = ["newcomer"]
    search_fields = ["user__username", "agent__name", "simulation__name"]
    list_select_related = ["user", "agent", "simulation"]
    readonly_fields = ["simulation", "user", "agent", "newcomer", "joined_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Player | None = None) -> bool:
        return False
