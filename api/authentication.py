"""Token authentication with failed attempts throttled per client
(smallville_project.auth_failures): a client that sent too many wrong tokens gets 429 and
Retry-After, not another 401 to learn from."""

from __future__ import annotations

import math
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.request import Request

from smallville_project.auth_failures import auth_failed, auth_wait


class ThrottledTokenAuthentication(TokenAuthentication):
    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, Any] | None:
        auth = get_authorization_header(request).split()
        if not auth or auth[0].lower() != self.keyword.lower().encode():
            return None  # no token: not ours to count
        wait = auth_wait(request.META)
        if wait is not None:
            raise exceptions.Throttled(
                wait=math.ceil(wait), detail="Too many wrong tokens from this address."
            )
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            auth_failed(request.META)
            raise
