"""Views of the web face: thin, reads through selectors."""

from __future__ import annotations

import math
from typing import Any

from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import User
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from kernel.auth_failures import auth_failed, auth_wait

from .simulation_views import landing_context


def landing(request: HttpRequest) -> HttpResponse:
    """What Smallville is, where its API docs and admin are; for a logged-in user, their
    simulations and a form to make one from a base."""
    user = request.user
    context = landing_context(user) if isinstance(user, User) else {}
    return render(request, "web/landing.html", context)


class ThrottledLoginView(LoginView):
    """Django's login, with failed logins throttled per client
    (kernel.auth_failures): past the limit the form answers 429 with
    Retry-After and checks no password until the wait is over."""

    template_name = "web/login.html"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = auth_wait(request.META)
        if wait is None:
            return super().post(request, *args, **kwargs)
        seconds = math.ceil(wait)
        context = self.get_context_data(form=self.get_form(), throttled=seconds)
        response = self.render_to_response(context, status=429)
        response["Retry-After"] = str(seconds)
        return response

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        auth_failed(self.request.META)
        return super().form_invalid(form)
