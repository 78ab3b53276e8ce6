"""Simulations from the web face: a logged-in user makes one from a base (theirs or a
shipped one) and lands in its viewer, where Run, Pause and the rest are; and deletes one
after a page that says what goes with it."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from agents.bases.format import BaseInvalid
from agents.bases.reference import UnknownBase
from agents.bases.selectors import bases_visible
from agents.config import ConfigInvalid
from agents.services import simulation_create_from_base
from llm.errors import LLMError
from llm.models import ModelRoute
from memories.embeddings import EmbeddingError
from runtime.engine import RunConflict, simulation_delete
from world.clock import SimTimeOutOfReach
from world.models import Simulation
from world.selectors import simulation_get, simulation_joinable, simulation_list


class SimulationForm(forms.Form):
    base = forms.IntegerField(min_value=1)
    name = forms.CharField(max_length=200, required=False)
    seed = forms.IntegerField(min_value=0, max_value=2**62, required=False)


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required
    return user


def landing_context(user: User) -> dict[str, object]:
    """What the landing page lists for a logged-in user: their simulations, each with the
    model its residents run on (its route to a profile, else the settings'), the bases."""
    simulations = list(simulation_list(user=user).only("id", "name", "status", "step", "base"))
    routes = ModelRoute.objects.filter(simulation__in=simulations, group="residents")
    models = {
        r.simulation_id: f"{r.profile.backend}: {r.profile.name}"
        for r in routes.select_related("profile")
    }
    default = settings.SMALLVILLE_LLM_BACKEND
    shared = simulation_joinable(user=user).exclude(owner=user).select_related("owner")
    return {
        "simulations": [(s, models.get(s.pk, default)) for s in simulations],
        "shared": list(shared.only("id", "name", "status", "step", "owner__username")),
        "bases": bases_visible(user=user).only("id", "name", "owner_id", "town"),
    }


def _owned(request: HttpRequest, pk: int) -> Simulation:
    try:
        return simulation_get(user=_user(request), pk=pk)
    except Simulation.DoesNotExist as missing:
        raise Http404("no such simulation of yours") from missing


@login_required
@require_http_methods(["GET", "POST"])
def simulation_delete_page(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: what deleting the simulation removes, and a button; POST: delete it (as
    `DELETE /api/simulations/{id}/`) and go back to the list; refused while it runs."""
    simulation = _owned(request, pk)
    context: dict[str, object] = {
        "simulation": simulation,
        "events": simulation.events.count(),
        "residents": simulation.agents.count(),
        "forks": simulation.forks.count(),
    }
    if request.method == "GET":
        return render(request, "web/simulation_delete.html", context)
    try:
        simulation_delete(simulation=simulation)
    except RunConflict as refused:
        context["error"] = str(refused)
        return render(request, "web/simulation_delete.html", context, status=409)
    return redirect("landing")


@login_required
@require_POST
def simulation_new(request: HttpRequest) -> HttpResponse:
    """Make a simulation of the chosen base and open its viewer; a bad choice re-shows the
    page with the reason (400), and nothing is made."""
    user = _user(request)
    form = SimulationForm(request.POST)
    error = ""
    if form.is_valid():
        data = form.cleaned_data
        try:
            simulation = simulation_create_from_base(
                owner=user, base=data["base"], name=data["name"], seed=data["seed"] or 0
            )
        except (UnknownBase, BaseInvalid, ConfigInvalid, SimTimeOutOfReach) as refused:
            error = f"base: {refused}"
        except (LLMError, EmbeddingError) as failed:  # seeding rates and embeds memories
            error = f"The model could not seed the residents' memories: {failed}"
        else:
            return redirect("viewer", pk=simulation.pk)
    else:
        error = "; ".join(
            f"{field}: {' '.join(str(m) for m in e)}" for field, e in form.errors.items()
        )
    context = {**landing_context(user), "create_error": error, "form": form}
    return render(request, "web/landing.html", context, status=400)
