"""Admin of residents, their plans, conversations and object states: read-only, since every
field is a projection of the event log."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from agents.models import Conversation, ObjectState, PlanItem
from agents.selectors import PlanNode, conversation_list, plan_items_current, plan_tree
from world.admin import ModelAdmin
from world.models import Agent

_M = TypeVar("_M", bound=Model)

# Agent columns a list has no use for: large JSON, read on the change page only.
_AGENT_BULK = ("spatial_memory", "seed_statements", "path", "recent_observations")


class ReadOnlyAdmin(ModelAdmin[_M]):
    """Staff may read; nobody may add, change or delete (change it by events)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _doing(emoji: str, action: str) -> str:
    return f"{emoji} {action}".strip()


def plan_tree_html(roots: list[PlanNode], current: set[int]) -> SafeString:
    """Nested lists: each item's time, length and description above what it decomposes into;
    the items under way in bold."""

    def node_html(node: PlanNode) -> SafeString:
        item = node.item
        text = format_html(
            "{} ({} min) {}",
            f"{item.start:%H:%M}",
            item.duration_minutes,
            _doing(item.emoji, item.description),
        )
        if item.pk in current:
            text = format_html("<strong>{}</strong>", text)
        children = format_html_join("", "{}", ((node_html(child),) for child in node.children))
        return format_html(
            "<li>{} <small>{}</small>{}</li>",
            text,
            item.address,
            format_html("<ul>{}</ul>", children) if node.children else "",
        )

    if not roots:
        return format_html("<p>{}</p>", "No plan for this day.")
    return format_html("<ul>{}</ul>", format_html_join("", "{}", ((node_html(n),) for n in roots)))


def transcript_html(lines: list[dict[str, str]]) -> SafeString:
    if not lines:
        return format_html("<p>{}</p>", "No lines.")
    return format_html_join(
        "", "<p><strong>{}</strong>: {}</p>", ((line["speaker"], line["text"]) for line in lines)
    )


@admin.register(Agent)
class AgentAdmin(ReadOnlyAdmin[Agent]):
    list_display = [
        "name",
        "simulation",
        "doing",
        "place",
        "busy_until_step",
        "chatting_with",
        "tile",
    ]
    list_filter = ["simulation"]
    search_fields = ["name"]
    list_select_related = ["simulation"]
    readonly_fields = ["plan_today", "conversations"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Agent]:
        return super().get_queryset(request).defer(*_AGENT_BULK)

    @admin.display(description="tile")
    def tile(self, agent: Agent) -> str:
        return f"({agent.tile_x}, {agent.tile_y})"

    @admin.display(description="action", ordering="action")
    def doing(self, agent: Agent) -> str:
        return _doing(agent.action_emoji, agent.action)

    @admin.display(description="place", ordering="action_address")
    def place(self, agent: Agent) -> str:
        return agent.action_address

    @admin.display(description="today's plan (in bold: under way)")
    def plan_today(self, agent: Agent) -> SafeString:
        now = agent.simulation.sim_time
        roots = plan_tree(agent=agent, day=now.date())
        return plan_tree_html(roots, plan_items_current(roots=roots, now=now))

    @admin.display(description="conversations")
    def conversations(self, agent: Agent) -> SafeString:
        talks = conversation_list(simulation=agent.simulation, participant=agent.name).defer(
            "lines"
        )
        rows = (
            (
                reverse("admin:agents_conversation_change", args=[talk.pk]),
                talk.number,
                " & ".join(talk.participants),
                talk.step,
                talk.summary,
            )
            for talk in talks
        )
        html = format_html_join(
            "", '<li><a href="{}">#{}</a> {} <small>step {}</small> {}</li>', rows
        )
        return format_html("<ul>{}</ul>", html) if html else format_html("<p>{}</p>", "None.")


@admin.register(PlanItem)
class PlanItemAdmin(ReadOnlyAdmin[PlanItem]):
    list_display = [
        "agent",
        "number",
        "level",
        "start",
        "duration_minutes",
        "emoji",
        "description",
        "superseded",
    ]
    list_filter = ["level", "superseded", "simulation"]
    search_fields = ["description"]
    list_select_related = ["agent"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[PlanItem]:
        bulk = (f"agent__{name}" for name in _AGENT_BULK)
        return super().get_queryset(request).defer(*bulk)


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdmin[Conversation]):
    list_display = ["number", "simulation", "who", "step", "started", "summary"]
    list_filter = ["simulation"]
    search_fields = ["summary"]
    list_select_related = ["simulation"]
    fields = readonly_fields = (
        "simulation",
        "number",
        "who",
        "address",
        "step",
        "started",
        "summary",
        "transcript",
    )

    @admin.display(description="participants")
    def who(self, conversation: Conversation) -> str:
        return " & ".join(conversation.participants)

    @admin.display(description="transcript")
    def transcript(self, conversation: Conversation) -> SafeString:
        return transcript_html(conversation.lines)


@admin.register(ObjectState)
class ObjectStateAdmin(ReadOnlyAdmin[ObjectState]):
    list_display = ["simulation", "address", "state", "by_agent"]
    list_filter = ["simulation"]
    search_fields = ["address", "state", "by_agent"]
    list_select_related = ["simulation"]


from .bases import admin as _bases_admin  # noqa: E402,F401  (registers BaseAdmin)
