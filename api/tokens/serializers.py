"""API tokens as the API shows them: never the key, but once, when it is made."""

from __future__ import annotations

from rest_framework import serializers

from integration.models import NAME_MAX, ApiToken

from ..fields import StrictFieldsMixin


class ApiTokenSerializer(serializers.ModelSerializer[ApiToken]):
    revoked = serializers.SerializerMethodField()

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at", "revoked"]
        read_only_fields = fields

    def get_revoked(self, token: ApiToken) -> bool:
        return token.revoked_at is not None


class ApiTokenCreateSerializer(StrictFieldsMixin, serializers.Serializer[None]):
    name = serializers.CharField(max_length=NAME_MAX, help_text="What the token is for.")


class ApiTokenMadeSerializer(ApiTokenSerializer):
    key = serializers.CharField(
        help_text="The key, shown this once: send it as `Authorization: Token <key>`."
    )

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "key"]
        read_only_fields = fields
