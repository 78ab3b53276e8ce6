"""URLs of the web face: the landing page, a new simulation, the viewer, tokens, login."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from . import simulation_views, token_views, viewer_views, views

urlpatterns = [
    path("", views.landing, name="landing"),
    path("simulations/new/", simulation_views.simulation_new, name="simulation-new"),
    path("simulations/<int:pk>/", viewer_views.viewer, name="viewer"),
    path(
        "simulations/<int:pk>/delete/",
        simulation_views.simulation_delete_page,
        name="simulation-delete",
    ),
    path("accounts/tokens/", token_views.tokens, name="tokens"),
    path("accounts/tokens/<int:pk>/revoke/", token_views.token_revoke, name="token-revoke"),
    path(
        "accounts/tokens/legacy/revoke/",
        token_views.token_legacy_revoke,
        name="token-legacy-revoke",
    ),
    path("accounts/login/", views.ThrottledLoginView.as_view(), name="login"),
    # Logout is a POST (Django 5): a link cannot log anyone out behind their back.
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
]
