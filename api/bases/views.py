"""Views of bases: the requester's and the shipped ones; shipped bases are read-only."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from agents.bases.selectors import bases_visible
from agents.bases.services import base_copy, base_create, base_delete, base_update
from world.models import Base

from ..errors import domain_errors, error_responses
from ..lookups import requester
from ..parsers import JSONParser
from .serializers import BaseCopySerializer, BaseSerializer

_WRITE_ERRORS = error_responses(400, 401, 403, 404, 413)


@extend_schema_view(
    list=extend_schema(summary="List my bases and the shipped ones"),
    retrieve=extend_schema(
        summary="A base", responses={200: BaseSerializer, **error_responses(401, 404)}
    ),
    create=extend_schema(
        summary="Create a base from a base file",
        responses={201: BaseSerializer, **error_responses(400, 401, 413)},
    ),
    update=extend_schema(
        summary="Replace a base", responses={200: BaseSerializer, **_WRITE_ERRORS}
    ),
    partial_update=extend_schema(
        summary="Change a base's top-level fields", responses={200: BaseSerializer, **_WRITE_ERRORS}
    ),
    destroy=extend_schema(summary="Delete a base", responses={204: None, **_WRITE_ERRORS}),
)
class BaseViewSet(viewsets.ModelViewSet[Base]):
    """Bases the requester may use: their own, and the shipped ones (read-only). Anyone
    else's are not found. A bad field is a 400 naming it (e.g. `residents.0.living_area`),
    and nothing is written."""

    serializer_class = BaseSerializer
    queryset = Base.objects.none()
    parser_classes = [JSONParser]

    def get_queryset(self) -> QuerySet[Base]:
        return bases_visible(user=requester(self.request)).select_related("owner")

    def _writable(self) -> Base:
        base = self.get_object()
        if base.shipped:
            raise exceptions.PermissionDenied("a shipped base is read-only; copy it to change it")
        return base

    def create(self, request: Request) -> Response:
        with domain_errors():
            base = base_create(owner=requester(request), data=request.data)
        return Response(self.get_serializer(base).data, status=status.HTTP_201_CREATED)

    def update(self, request: Request, *args: object, **kwargs: object) -> Response:
        base = self._writable()
        with domain_errors():
            base = base_update(base=base, data=request.data, partial=bool(kwargs.get("partial")))
        return Response(self.get_serializer(base).data)

    def destroy(self, request: Request, *args: object, **kwargs: object) -> Response:
        base_delete(base=self._writable())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Copy a base (yours or a shipped one) into a new base of yours",
        request=BaseCopySerializer,
        responses={201: BaseSerializer, **error_responses(400, 401, 404)},
    )
    @action(detail=True, methods=["post"])
    def copy(self, request: Request, pk: str | None = None) -> Response:
        source = self.get_object()
        body = BaseCopySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with domain_errors():
            base = base_copy(
                base=source, owner=requester(request), name=body.validated_data["name"]
            )
        return Response(self.get_serializer(base).data, status=status.HTTP_201_CREATED)
