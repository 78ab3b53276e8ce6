"""The API's strict fields: integers that are integers, text no column refuses, booleans
in queries, sim times the calendar holds, and the config checked against its schema."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from drf_spectacular.utils import extend_schema_field
from pydantic import ValidationError as SchemaError
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from agents.config import SimulationConfig
from world.fieldpath import loc_errors


def _openapi_schema(schema: Any, defs: dict[str, Any]) -> Any:
    """A pydantic JSON schema as an OpenAPI 3.0 schema: references inlined, `const` as a
    one-value enum, `null` in `anyOf` as `nullable`, titles dropped."""
    if isinstance(schema, list):
        return [_openapi_schema(item, defs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return _openapi_schema(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("title", "$defs"):
            continue
        if key == "const":
            out["enum"] = [value]
        elif key == "anyOf":
            kinds = [v for v in value if v != {"type": "null"}]
            if len(kinds) < len(value):
                out["nullable"] = True
            if len(kinds) == 1:
                out.update(_openapi_schema(kinds[0], defs))
            else:
                out["anyOf"] = _openapi_schema(kinds, defs)
        else:
            out[key] = _openapi_schema(value, defs)
    return out


def _config_schema() -> dict[str, Any]:
    schema = SimulationConfig.model_json_schema()
    return dict(_openapi_schema(schema, schema.get("$defs", {})))


@extend_schema_field(_config_schema())
class ConfigField(serializers.DictField):
    """A simulation's config (agents.config.SimulationConfig), checked by the service."""


def config_check_strictly(config: dict[str, Any]) -> None:
    """A 400 by field (`config.<key>`, as the service reports) unless `config` passes its
    schema as JSON, strictly: the service's check converts types (true for a weight, "7"
    for a threshold); the schema the API publishes does not."""
    try:
        SimulationConfig.model_validate_json(json.dumps(config), strict=True)
    except SchemaError as exc:
        errors = loc_errors(exc.errors(), prefix="config")
        raise serializers.ValidationError(errors, code="invalid_config") from None


class CalendarDateTimeField(serializers.DateTimeField):
    """A date-time whose conversion to UTC stays within the calendar: one at its ends
    (9999-12-31T23:00-05:00) is a 400, not an overflow."""

    def to_internal_value(self, value: Any) -> datetime:
        try:
            return super().to_internal_value(value)
        except (OverflowError, ValueError):
            self.fail("invalid", format="an ISO 8601 date-time from year 1 to 9999")


class StrictFieldsMixin:
    """Reject unknown keys: a typo in a field name must not be silently ignored. They are
    reported with the other fields at fault, not after them."""

    fields: Any
    initial_data: Any

    def to_internal_value(self, data: Any) -> Any:
        unknown = self._unknown(data)
        try:
            value = super().to_internal_value(data)  # type: ignore[misc]
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                unknown_field = ErrorDetail("Unknown field.", code="unknown_field")
                exc.detail.update({name: [unknown_field] for name in unknown})
            raise
        if unknown:
            raise serializers.ValidationError(
                {name: ["Unknown field."] for name in unknown}, code="unknown_field"
            )
        return value

    def _unknown(self, data: Any) -> list[str]:
        """The keys of the request's body (not of a nested object) that are no field."""
        if not isinstance(data, dict) or data is not getattr(self, "initial_data", None):
            return []
        keys: set[str] = set(data.keys())  # type: ignore[union-attr]  # narrowed by `is`
        return sorted(keys - set(self.fields))


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer; not a numeric string, a float or a boolean."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictNumberField(serializers.FloatField):
    """A JSON number (integer or not); not a numeric string or a boolean."""

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictCharField(serializers.CharField):
    """A JSON string; not a number."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class QueryBooleanField(serializers.BooleanField):
    """A query parameter's true or false; not "1", "yes" or "maybe" (a 400, as every
    boolean filter: api.filters.StrictBooleanFilter)."""

    default_empty_html = serializers.empty  # absent is absent (DRF: False, as a checkbox)

    def to_internal_value(self, data: Any) -> bool:
        if data not in ("true", "false"):
            self.fail("invalid", input=data)
        return bool(data == "true")


# --- towns and locations -----------------------------------------------------------------


class UniqueListField(serializers.ListField):
    """A list whose items may not repeat: a 400 naming the field, not 10,000 copies of one
    item stored (or asked about) one by one."""

    default_error_messages = {"repeated": "{item} is repeated: give each item once."}

    def to_internal_value(self, data: Any) -> list[Any]:
        items: list[Any] = super().to_internal_value(data)
        seen: set[str] = set()
        for item in items:
            key = json.dumps(item, sort_keys=True)
            if key in seen:
                self.fail("repeated", item=key[:100])
            seen.add(key)
        return items


class StrictBooleanField(serializers.BooleanField):
    """A JSON true or false; not "yes", 1 or "on"."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


def text_field(max_length: int, help_text: str, **kwargs: Any) -> StrictCharField:
    """A required text of at least one character."""
    return StrictCharField(min_length=1, max_length=max_length, help_text=help_text, **kwargs)


def tile_field(help_text: str) -> serializers.ListField:
    """An optional tile of a town, [x, y] (walkable or not is the service's to say)."""
    return serializers.ListField(
        child=StrictIntegerField(min_value=0, max_value=10_000),
        min_length=2,
        max_length=2,
        required=False,
        help_text=help_text,
    )


def address_or_tile(attrs: dict[str, Any]) -> None:
    """A 400 unless exactly one of `address` and `tile` is given: where to be or go."""
    if ("address" in attrs) == ("tile" in attrs):
        raise serializers.ValidationError("give exactly one of address and tile")
