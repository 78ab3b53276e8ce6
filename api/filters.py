"""Query filters of the list endpoints (django-filter, so the schema lists them)."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import Q, QuerySet
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.views import APIView

from world.models import Agent, Event, Location, LocationKind, Town


class IntegerFilter(django_filters.NumberFilter):
    """A whole number: 1.5 is an error, not a silent match on a decimal (one beyond any
    column's range matches nothing or everything, as Django compares it)."""

    field_class = forms.IntegerField


class _StrictNullBoolean(forms.NullBooleanField):
    widget = forms.TextInput

    def to_python(self, value: object) -> bool | None:  # type: ignore[override]
        if value is None:
            return None
        if value in ("true", "false"):
            return value == "true"
        raise forms.ValidationError("Enter true or false.", code="invalid")

    def validate(self, value: object) -> None:
        pass


class StrictBooleanFilter(django_filters.BooleanFilter):
    """true or false: anything else is an error, not a silently ignored filter."""

    field_class = _StrictNullBoolean


class StrictFilterBackend(DjangoFilterBackend):
    """An empty value of a typed filter (number, date, choice, boolean) is a 400; django-filter
    would read it as no filter at all. Only text filters may be empty. A malformed value
    (`?has_error=maybe`, `?step_min=x`) is a 400 too: django-filter's errors are raised, and
    every boolean filter is a StrictBooleanFilter (tests/runtime/controls/test_faults.py checks)."""

    def filter_queryset(
        self, request: Request, queryset: QuerySet[Any], view: APIView
    ) -> QuerySet[Any]:
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None:
            empty = {
                name: ["must not be empty"]
                for name, field in filterset_class.base_filters.items()
                if request.query_params.get(name) == ""
                and not isinstance(field, django_filters.CharFilter)
            }
            if empty:
                raise exceptions.ValidationError(empty)
        return super().filter_queryset(request, queryset, view)


class TownFilter(django_filters.FilterSet):
    search = django_filters.CharFilter(
        method="search_names", label="name or world name contains (any case)"
    )

    class Meta:
        model = Town
        fields = ["search"]

    def search_names(self, queryset: QuerySet[Town], name: str, value: str) -> QuerySet[Town]:
        return queryset.filter(Q(name__icontains=value) | Q(world_name__icontains=value))


class LocationFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=LocationKind.choices)
    search = django_filters.CharFilter(
        field_name="address", lookup_expr="icontains", label="address contains (any case)"
    )
    parent = IntegerFilter(field_name="parent", label="id of the parent place")

    class Meta:
        model = Location
        fields = ["kind", "search", "parent"]


class ResidentFilter(django_filters.FilterSet):
    search = django_filters.CharFilter(
        field_name="name", lookup_expr="icontains", label="name contains (any case)"
    )
    user_controlled = StrictBooleanFilter(label="moved by a user (true) or by its plan (false)")

    class Meta:
        model = Agent
        fields = ["search", "user_controlled"]


class EventFilter(django_filters.FilterSet):
    kind = django_filters.CharFilter(label="event kind, e.g. agent.moved")
    agent = django_filters.CharFilter(label="agent name")
    step_min = IntegerFilter(field_name="step", lookup_expr="gte")
    step_max = IntegerFilter(field_name="step", lookup_expr="lte")
    seq_after = IntegerFilter(
        field_name="seq", lookup_expr="gt", label="only events with a larger seq"
    )

    class Meta:
        model = Event
        fields = ["kind", "agent", "step_min", "step_max", "seq_after"]
