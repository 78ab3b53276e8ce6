"""Which model answers a call: a simulation's routes to model profiles, and what a call
costs on its profile.

A simulation's route `residents` names the profile of all its calls; a route named after
a task group (`TASK_GROUPS`) or a task sends those calls elsewhere. A simulation with no
routes runs on the SMALLVILLE_LLM_* settings, as before profiles existed.
"""

from __future__ import annotations

from decimal import Decimal

from .backends import Backend, LLMConfig, backend_get
from .models import ModelProfile, ModelRoute

RESIDENTS = "residents"
# Groups of tasks a route can name, beside any single task's name.
TASK_GROUPS: dict[str, tuple[str, ...]] = {
    "ratings": ("importance", "importance_many"),
    "summaries": ("summary", "conversation_summary"),
    "reflections": ("reflection_questions", "reflection_insights"),
    "judge": ("believability_judge",),
}
ROUTE_GROUPS = (RESIDENTS, *TASK_GROUPS)
_MILLION = Decimal(1_000_000)


def group_of(task: str) -> str:
    """The named group `task` belongs to; `residents` when none."""
    return next((group for group, tasks in TASK_GROUPS.items() if task in tasks), RESIDENTS)


def profile_route(*, simulation_id: int | None, task: str) -> ModelProfile | None:
    """The profile `task`'s calls in the simulation go to: the task's own route, else its
    group's, else the residents'; None: the SMALLVILLE_LLM_* settings."""
    if simulation_id is None:
        return None
    order = [task, group_of(task), RESIDENTS]
    routes = {
        route.group: route.profile
        for route in ModelRoute.objects.filter(
            simulation_id=simulation_id, group__in=order
        ).select_related("profile")
    }
    return next((routes[group] for group in order if group in routes), None)


def profile_backend(profile: ModelProfile | None) -> Backend:
    """The backend of `profile` (the settings' own when None). Raises ProfileUnusable."""
    if profile is None:
        return backend_get()
    return backend_get(LLMConfig.from_settings().for_profile(profile))


def call_cost(
    profile: ModelProfile | None, *, prompt_tokens: int, completion_tokens: int
) -> Decimal:
    """What a call's tokens cost at the profile's prices (0 without a profile)."""
    if profile is None:
        return Decimal(0)
    spent = prompt_tokens * profile.input_price + completion_tokens * profile.output_price
    return (spent / _MILLION).quantize(Decimal("0.00000001"))
