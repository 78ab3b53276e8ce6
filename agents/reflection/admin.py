"""Reflection jobs in the admin, read-only, with the evidence trees of what they made; and a
page for the evidence tree of any memory, down to observations."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from agents.reflection.models import ReflectionJob
from memories.models import Memory, MemoryKind
from memories.selectors import EvidenceNode, memory_evidence_tree
from world.admin import ModelAdmin


def evidence_tree_html(node: EvidenceNode) -> SafeString:
    """Nested lists: each memory, linked to its admin page, above what it cites."""
    memory = node["memory"]
    children = format_html_join(
        "", "{}", ((evidence_tree_html(child),) for child in node["evidence"])
    )
    return format_html(
        '<li><a href="{}">#{}</a> <small>{} · importance {} · depth {}</small> {}{}</li>',
        reverse("admin:memories_memory_change", args=[memory.pk]),
        memory.number,
        memory.kind,
        memory.importance,
        memory.depth,
        memory.description,
        format_html("<ul>{}</ul>", children) if node["evidence"] else "",
    )


def _pre(value: Any) -> SafeString:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return format_html('<pre style="white-space: pre-wrap; margin: 0">{}</pre>', text)


@admin.register(ReflectionJob)
class ReflectionJobAdmin(ModelAdmin[ReflectionJob]):
    """Jobs between a reflection's request and the commit that logs it; read-only."""

    list_display = [
        "id",
        "simulation",
        "agent",
        "requested_step",
        "due_step",
        "status",
        "attempts",
        "queue",
        "dropped",
        "finished_at",
    ]
    list_filter = ["status", "simulation"]
    search_fields = ["agent"]
    fields = readonly_fields = (
        "simulation",
        "agent",
        "requested_step",
        "due_step",
        "status",
        "attempts",
        "queue",
        "error",
        "created_at",
        "sent_at",
        "started_at",
        "finished_at",
        "questions_list",
        "dropped_citations_json",
        "reflections",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="dropped citations")
    def dropped(self, job: ReflectionJob) -> int:
        return len(job.dropped_citations)

    @admin.display(description="questions")
    def questions_list(self, job: ReflectionJob) -> SafeString | str:
        if not job.questions:
            return "-"
        return format_html(
            "<ol>{}</ol>", format_html_join("", "<li>{}</li>", ((q,) for q in job.questions))
        )

    @admin.display(description="dropped citations")
    def dropped_citations_json(self, job: ReflectionJob) -> SafeString | str:
        return _pre(job.dropped_citations) if job.dropped_citations else "-"

    @admin.display(description="reflections and their evidence trees")
    def reflections(self, job: ReflectionJob) -> SafeString | str:
        """The reflection memories the due commit made, each with its tree."""
        made = Memory.objects.filter(
            simulation_id=job.simulation_id,
            agent__name=job.agent,
            kind=MemoryKind.REFLECTION,
            created=job.simulation.sim_time_at(job.due_step),
        ).order_by("number")
        trees = [memory_evidence_tree(memory=memory) for memory in made.defer("embedding")]
        if not trees:
            return "-" if job.status != "done" else "not logged yet (the due step is ahead)"
        return format_html(
            "<ul>{}</ul>", format_html_join("", "{}", ((evidence_tree_html(t),) for t in trees))
        )

    def get_urls(self) -> list[URLPattern]:
        tree = path(
            "evidence/<int:memory_id>/",
            self.admin_site.admin_view(self.evidence_view),
            name="reflection_evidence_tree",
        )
        return [tree, *super().get_urls()]

    def evidence_view(self, request: HttpRequest, memory_id: int) -> HttpResponse:
        """The evidence tree of one memory (a reflection, usually), down to observations."""
        if not request.user.is_staff or not request.user.has_perm("memories.view_memory"):
            raise PermissionDenied
        memory = get_object_or_404(Memory.objects.defer("embedding"), pk=memory_id)
        if memory.kind != MemoryKind.REFLECTION:
            raise Http404("only reflections cite evidence")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Evidence of {memory.agent.name}'s memory #{memory.number}",
            "tree": format_html(
                "<ul>{}</ul>", evidence_tree_html(memory_evidence_tree(memory=memory))
            ),
        }
        return TemplateResponse(request, "admin/reflection/evidence_tree.html", context)
