"""The town viewer page: the simulation's owner, and the guests it is shared with (who
watch and play); the page itself reads the REST API."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from runtime.replay import MAX_REPLAY_STEPS
from world.models import Simulation
from world.selectors import simulation_joined


@login_required
def viewer(request: HttpRequest, pk: int) -> HttpResponse:
    """The town of simulation `pk`, live and in replay; a simulation neither the user's
    nor shared with them is a 404."""
    try:
        simulation = simulation_joined(user=request.user, pk=pk)
    except Simulation.DoesNotExist:
        raise Http404("no such simulation") from None
    context = {
        "simulation": simulation,
        "role": "owner" if simulation.owner_id == request.user.pk else "guest",
        # What the server's workers run on now; the page also reads the model-call ledger.
        "server_backend": settings.SMALLVILLE_LLM_BACKEND,
        "replay_chunk": MAX_REPLAY_STEPS,
    }
    return render(request, "web/viewer.html", context)
