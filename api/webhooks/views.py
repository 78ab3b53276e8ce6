"""The requester's webhooks: subscribe a URL (its signing secret shown once), list,
change, delete, and read a webhook's deliveries. Anyone else's are not found."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from integration.webhooks.models import WebhookSubscription
from integration.webhooks.selectors import webhook_deliveries_of, webhooks_of
from integration.webhooks.services import (
    WebhookRefused,
    webhook_create,
    webhook_delete,
    webhook_update,
)

from ..errors import error_responses
from ..lookups import requester
from ..pagination import StrictLimitOffsetPagination
from ..parsers import JSONParser
from .serializers import (
    WebhookDeliverySerializer,
    WebhookMadeSerializer,
    WebhookSerializer,
    WebhookWriteSerializer,
)


@extend_schema_view(
    list=extend_schema(summary="List your webhooks (never their secrets)"),
    retrieve=extend_schema(
        summary="One of your webhooks",
        responses={200: WebhookSerializer, **error_responses(401, 404)},
    ),
)
class WebhookViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[WebhookSubscription]
):
    serializer_class = WebhookSerializer
    lookup_value_regex = r"\d+"
    queryset = WebhookSubscription.objects.none()
    parser_classes = [JSONParser]

    def get_queryset(self) -> QuerySet[WebhookSubscription]:
        if getattr(self, "swagger_fake_view", False):
            return WebhookSubscription.objects.none()
        return webhooks_of(user=requester(self.request))

    @extend_schema(
        summary="Subscribe a URL: the signing secret is in this answer only",
        request=WebhookWriteSerializer,
        responses={201: WebhookMadeSerializer, **error_responses(400, 401, 413)},
    )
    def create(self, request: Request) -> Response:
        incoming = WebhookWriteSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        fields = incoming.validated_data
        if "active" in fields:
            raise serializers.ValidationError({"active": ["A new webhook is active."]})
        with _refusals():
            made = webhook_create(
                user=requester(request),
                url=fields["url"],
                events=fields["events"],
                log_kinds=fields.get("log_kinds", []),
                simulation_id=fields.get("simulation"),
                name=fields.get("name", ""),
            )
        body = {**WebhookSerializer(made.subscription).data, "secret": made.secret}
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change a webhook (active: true enables a disabled one again)",
        request=WebhookWriteSerializer,
        responses={200: WebhookSerializer, **error_responses(400, 401, 404, 413)},
    )
    def partial_update(self, request: Request, pk: str | None = None) -> Response:
        subscription = self.get_object()
        incoming = WebhookWriteSerializer(data=request.data, partial=True)
        incoming.is_valid(raise_exception=True)
        changes: dict[str, Any] = dict(incoming.validated_data)
        if "simulation" in changes:
            changes["simulation_id"] = changes.pop("simulation")
        with _refusals():
            subscription = webhook_update(
                user=requester(request), subscription_id=subscription.pk, changes=changes
            )
        return Response(WebhookSerializer(subscription).data)

    @extend_schema(
        summary="Delete a webhook and its deliveries' log",
        request=None,
        responses={204: None, **error_responses(401, 404)},
    )
    def destroy(self, request: Request, pk: str | None = None) -> Response:
        try:
            webhook_delete(user=requester(request), subscription_id=int(pk or 0))
        except (WebhookSubscription.DoesNotExist, ValueError):
            raise exceptions.NotFound("No such webhook.") from None
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="A webhook's deliveries, newest first: status, attempts, the answer's code",
        responses={200: WebhookDeliverySerializer(many=True), **error_responses(401, 404)},
    )
    @action(detail=True, methods=["get"])
    def deliveries(self, request: Request, pk: str | None = None) -> Response:
        subscription = self.get_object()
        rows = webhook_deliveries_of(user=requester(request), subscription_id=subscription.pk)
        pages = StrictLimitOffsetPagination()
        page = pages.paginate_queryset(rows, request, view=self) or []
        return pages.get_paginated_response(WebhookDeliverySerializer(page, many=True).data)


@contextmanager
def _refusals() -> Iterator[None]:
    """A WebhookRefused as a 400 naming its field; nothing was written."""
    try:
        yield
    except WebhookRefused as refused:
        raise serializers.ValidationError({refused.field: [str(refused)]}) from None
