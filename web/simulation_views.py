"""Simulations from the web face: a logged-in user makes one from a base (theirs or a
shipped one) and lands in its viewer, where Run, Pause and the rest are."""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from agents.bases.format import BaseInvalid
from agents.bases.reference import UnknownBase
from agents.bases.selectors import bases_visible
from agents.config import ConfigInvalid
from agents.services import simulation_create_from_base
from llm.errors import LLMError
from memories.embeddings import EmbeddingError
from world.clock import SimTimeOutOfReach
from world.selectors import simulation_list


class SimulationForm(forms.Form):
    base = forms.IntegerField(min_value=1)
    name = forms.CharField(max_length=200, required=False)
    seed = forms.IntegerField(min_value=0, max_value=2**62, required=False)


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required
    return user


def landing_context(user: User) -> dict[str, object]:
    """What the landing page lists for a logged-in user: their simulations, the bases."""
    return {
        "simulations": simulation_list(user=user).only("id", "name", "status", "step", "base"),
        "bases": bases_visible(user=user).only("id", "name", "owner_id", "town"),
    }


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
