"""The requester's own API tokens: make one (its key shown once), list them, revoke one."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from integration.models import ApiToken
from integration.selectors import api_tokens_of
from integration.services import TokenRefused, api_token_create, api_token_revoke

from ..errors import error_responses
from .serializers import ApiTokenCreateSerializer, ApiTokenMadeSerializer, ApiTokenSerializer


class ApiTokenViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[ApiToken]
):
    serializer_class = ApiTokenSerializer
    lookup_value_regex = r"\d+"
    queryset = ApiToken.objects.none()

    def get_queryset(self) -> QuerySet[ApiToken]:
        if getattr(self, "swagger_fake_view", False):
            return ApiToken.objects.none()
        user = self.request.user
        assert isinstance(user, User)
        return api_tokens_of(user=user)

    @extend_schema(summary="List your API tokens (never their keys)")
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(
        summary="One of your API tokens (never its key)",
        responses={200: ApiTokenSerializer, **error_responses(404)},
    )
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        summary="Make an API token: its key is in this answer only",
        request=ApiTokenCreateSerializer,
        responses={201: ApiTokenMadeSerializer, **error_responses(400)},
    )
    def create(self, request: Request) -> Response:
        incoming = ApiTokenCreateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        user = request.user
        assert isinstance(user, User)
        try:
            made = api_token_create(user=user, name=incoming.validated_data["name"])
        except TokenRefused as refused:
            raise serializers.ValidationError({refused.field: [str(refused)]}) from None
        body = {**ApiTokenSerializer(made.token).data, "key": made.key}
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Revoke an API token: requests with its key get 401 from now on",
        request=None,
        responses={204: None, **error_responses(404)},
    )
    def destroy(self, request: Request, pk: str | None = None) -> Response:
        user = request.user
        assert isinstance(user, User)
        try:
            api_token_revoke(user=user, token_id=int(pk or 0))
        except (ApiToken.DoesNotExist, ValueError):
            raise exceptions.NotFound("No such token.") from None
        return Response(status=status.HTTP_204_NO_CONTENT)
