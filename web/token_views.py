"""The user's API tokens in the web face: make one (its key shown once), see them, revoke."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from integration.models import ApiToken
from integration.selectors import api_tokens_of, legacy_token_of
from integration.services import (
    TokenRefused,
    api_token_create,
    api_token_revoke,
    legacy_token_revoke,
)


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required
    return user


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """GET: the list, every token that authenticates the user (DRF's legacy one too);
    POST `name`: make a token and show its key, this once."""
    user = _user(request)
    context: dict[str, object] = {}
    status = 200
    if request.method == "POST":
        try:
            made = api_token_create(user=user, name=request.POST.get("name", ""))
            context["made"] = made
        except TokenRefused as refused:
            context["error"] = f"{refused.field}: {refused}"
            context["name"] = request.POST.get("name", "")
            status = 400
    context["tokens"] = api_tokens_of(user=user)
    context["legacy"] = legacy_token_of(user=user)
    return render(request, "web/tokens.html", context, status=status)


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        api_token_revoke(user=_user(request), token_id=pk)
    except ApiToken.DoesNotExist:
        return HttpResponse("No such token.", status=404)
    return redirect("tokens")


@login_required
@require_POST
def token_legacy_revoke(request: HttpRequest) -> HttpResponse:
    legacy_token_revoke(user=_user(request))
    return redirect("tokens")
