"""Admin of bases: a user's are edited as their base file's fields (checked as by REST);
shipped ones are read-only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.models import User
from django.http import HttpRequest

from world.admin import ModelAdmin
from world.models import Base

from .format import BaseInvalid
from .services import base_document, document_check


class BaseForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Base
        fields = ["owner", "name", "description", "town", "start_time", "sec_per_step", "residents"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        probe = Base(**{k: v for k, v in cleaned.items() if k != "owner"})
        try:
            document_check(base_document(base=probe), owner=cleaned.get("owner"))
        except BaseInvalid as exc:
            raise forms.ValidationError(
                [f"{field}: {' '.join(messages)}" for field, messages in exc.errors.items()]
            ) from None
        return cleaned


@admin.register(Base)
class BaseAdmin(ModelAdmin[Base]):
    form = BaseForm
    list_display = ["name", "town", "owner", "shipped", "resident_count", "updated_at"]
    list_filter = ["town"]
    search_fields = ["name", "description"]

    @admin.display(description="residents")
    def resident_count(self, base: Base) -> int:
        return len(base.residents)

    @admin.display(boolean=True)
    def shipped(self, base: Base) -> bool:
        return base.shipped

    def save_model(self, request: HttpRequest, obj: Base, form: Any, change: bool) -> None:
        # Shipped bases come from files only: a base added here belongs to someone.
        if obj.owner_id is None and isinstance(request.user, User):
            obj.owner = request.user
        super().save_model(request, obj, form, change)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_change_permission(request, obj) and not (obj and obj.shipped)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_delete_permission(request, obj) and not (obj and obj.shipped)
