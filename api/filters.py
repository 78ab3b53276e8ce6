"""Query filters of the list endpoints (django-filter, so the schema lists them)."""

from __future__ import annotations

import django_filters
from django import forms

from agents.models import Agent
from world.models import Event, Location, LocationKind


class IntegerFilter(django_filters.NumberFilter):
    """A whole number: 1.5 is an error, not a silent match on a decimal."""

    field_class = forms.IntegerField


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

    class Meta:
        model = Agent
        fields = ["search"]


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
