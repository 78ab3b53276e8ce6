"""Views of the web face: thin, reads through selectors."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from world.selectors import simulation_list


def landing(request: HttpRequest) -> HttpResponse:
    """What Smallville is, where its API docs and admin are, and the user's simulations."""
    simulations = simulation_list(user=request.user).only("id", "name", "status", "step")
    return render(request, "web/landing.html", {"simulations": simulations})
