"""Token authentication with failed attempts throttled per client
(kernel.auth_failures): a client past its wrong tokens gets 429 and
Retry-After for each wrong one, not another 401. A right token is served all the same: a
token cannot be guessed (160 random bits), and the clients behind one address (a NAT)
must not lose the API to one of them guessing.

Two kinds of key answer to `Authorization: Token <key>`: the tokens users make, name and
revoke themselves (integration.services, keys starting `sv_`), and the one legacy token
per user of DRF's authtoken (made by staff in the admin or `drf_create_token`)."""

from __future__ import annotations

import math
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.request import Request

from integration.services import api_token_user
from kernel.auth_failures import auth_failed, auth_wait


class ThrottledTokenAuthentication(TokenAuthentication):
    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, Any] | None:
        auth = get_authorization_header(request).split()
        if not auth or auth[0].lower() != self.keyword.lower().encode():
            return None  # no token: not ours to count
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            wait = auth_wait(request.META)
            auth_failed(request.META)
            if wait is not None:
                detail = "Too many wrong tokens from this address."
                raise exceptions.Throttled(wait=math.ceil(wait), detail=detail) from None
            raise

    def authenticate_credentials(self, key: str) -> tuple[AbstractBaseUser, Any]:
        found = api_token_user(key)
        if found is not None:
            return found
        return super().authenticate_credentials(key)
