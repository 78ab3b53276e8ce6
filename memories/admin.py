"""Admin of the memory stream: read-only (memories come from the event log), with a
retrieval form that ranks an agent's memories for a query without touching them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from world.admin import ModelAdmin
from world.models import Agent, Simulation

from .embeddings import EmbeddingError
from .models import Evidence, Memory
from .retrieval import Mode
from .selectors import RetrievalConfigError, cited_by, memories_by_id, memory_retrieval

if TYPE_CHECKING:
    from django.contrib.admin import TabularInline as TabularInline
else:

    class TabularInline(admin.TabularInline):
        """TabularInline[Child, Parent] at run time too, as django-stubs spells it."""

        def __class_getitem__(cls, item):
            return cls


# Agent columns never shown here: large JSON an admin list has no use for.
_AGENT_BULK = ("spatial_memory", "seed_statements", "path", "recent_observations")


def _memory_link(memory: Memory) -> SafeString:
    url = reverse("admin:memories_memory_change", args=[memory.pk])
    return format_html('<a href="{}">#{}</a>', url, memory.number)


class EvidenceInline(TabularInline[Evidence, Memory]):
    """The memories a reflection cites, in citation order."""

    model = Evidence
    fk_name = "reflection"
    verbose_name = "cited memory"
    verbose_name_plural = "evidence (cited memories, in citation order)"
    fields = readonly_fields = ("position", "cited", "cited_kind", "cited_description")
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Evidence]:
        return super().get_queryset(request).select_related("memory").defer("memory__embedding")

    @admin.display(description="memory")
    def cited(self, link: Evidence) -> SafeString:
        return _memory_link(link.memory)

    @admin.display(description="kind")
    def cited_kind(self, link: Evidence) -> str:
        return link.memory.kind

    @admin.display(description="description")
    def cited_description(self, link: Evidence) -> str:
        return link.memory.description


class RetrievalForm(forms.Form):
    simulation = forms.ModelChoiceField(
        queryset=Simulation.objects.only("id", "name").order_by("-created_at", "-id")
    )
    agent = forms.CharField(max_length=200, help_text="the resident's name or id")
    query = forms.CharField(max_length=1000)
    k = forms.IntegerField(min_value=1, max_value=100, initial=10)
    mode = forms.ChoiceField(choices=[(m.value, m.value) for m in Mode], initial=Mode.EXACT)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        simulation, key = data.get("simulation"), data.get("agent")
        if simulation is not None and key:
            lookup = {"pk": int(key)} if key.isascii() and key.isdigit() else {"name": key}
            agent = Agent.objects.filter(simulation=simulation, **lookup).only(
                "id", "name", "simulation_id", "recency_decay"
            )
            data["agent"] = agent.first()
            if data["agent"] is None:
                self.add_error("agent", f"{simulation} has no resident {key!r}")
        return data


@admin.register(Memory)
class MemoryAdmin(ModelAdmin[Memory]):
    """Memory streams; every row is a projection of the event log, so nothing is editable."""

    # What a memory says first: the row is its description, then whose and what kind.
    list_display = [
        "snippet",
        "agent",
        "number",
        "kind",
        "importance",
        "rating_due",
        "depth",
        "created",
    ]
    list_display_links = ["snippet"]
    list_filter = ["kind", "depth", "simulation"]
    search_fields = ["description"]
    list_select_related = ["agent"]
    show_full_result_count = False
    fields = readonly_fields = (
        "simulation",
        "agent",
        "number",
        "kind",
        "description",
        "subject",
        "predicate",
        "object",
        "created",
        "last_accessed",
        "importance",
        "rating_due",
        "depth",
        "embedding_norm",
        "cited_by_list",
    )
    inlines = [EvidenceInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Memory | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Memory | None = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Memory]:
        # The vector (384 floats) is loaded only where its norm is shown, on a change page.
        return (
            super()
            .get_queryset(request)
            .defer("embedding", *(f"agent__{name}" for name in _AGENT_BULK))
        )

    @admin.display(description="description")
    def snippet(self, memory: Memory) -> str:
        text = memory.description
        return text if len(text) <= 100 else text[:99] + "…"

    @admin.display(description="embedding (L2 norm)")
    def embedding_norm(self, memory: Memory) -> str:
        return f"{float(np.linalg.norm(np.asarray(memory.embedding, dtype=np.float64))):.4f}"

    @admin.display(description="cited by")
    def cited_by_list(self, memory: Memory) -> SafeString | str:
        reflections = list(cited_by(memory=memory))
        if not reflections:
            return "-"
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                "<li>{} {}</li>",
                ((_memory_link(r), r.description) for r in reflections),
            ),
        )

    def get_urls(self) -> list[URLPattern]:
        retrieve = path(
            "retrieve/",
            self.admin_site.admin_view(self.retrieve_view),
            name="memories_memory_retrieve",
        )
        return [retrieve, *super().get_urls()]

    def retrieve_view(self, request: HttpRequest) -> HttpResponse:
        """Rank an agent's memories for a query; reads only, so last access is untouched."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = RetrievalForm(request.POST if request.method == "POST" else None)
        results: list[dict[str, Any]] = []
        retrieval = None
        if form.is_bound and form.is_valid():
            data = form.cleaned_data
            try:
                retrieval = memory_retrieval(
                    simulation=data["simulation"],
                    agent=data["agent"],
                    query=data["query"],
                    k=data["k"],
                    mode=Mode(data["mode"]),
                )
            except (RetrievalConfigError, EmbeddingError) as exc:
                form.add_error(None, str(exc))
            else:
                rows = {
                    m.pk: m for m in memories_by_id(ids=[s.memory_id for s in retrieval.scored])
                }
                results = [
                    {"rank": rank, "memory": rows[s.memory_id], "scored": s}
                    for rank, s in enumerate(retrieval.scored, start=1)
                    if s.memory_id in rows
                ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Retrieve memories",
            "form": form,
            "retrieval": retrieval,
            "results": results,
        }
        return TemplateResponse(request, "admin/memories/memory/retrieve.html", context)
