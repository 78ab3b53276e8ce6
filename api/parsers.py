"""Request body parsers that refuse hostile input with a 400 before any view sees it.

JSON nested deeper than MAX_DEPTH (the standard parser recurses, and a few KB of `[[[[...`
exhaust the stack), numbers no column can hold (integers beyond 64 bits, floats that
overflow to infinity), and text no column can hold (NUL, lone surrogates) anywhere in a
body, keys included. Forms get the same text check."""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from world.fieldpath import field_path, path_join

MAX_DEPTH = 32
MAX_INT = 2**63 - 1
# NUL, and a UTF-16 surrogate on its own (JSON's "\ud800" decodes to one).
UNSAFE_TEXT = re.compile("[\x00\ud800-\udfff]")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")


def unsafe_text(value: str) -> bool:
    """Whether `value` holds a NUL or a lone surrogate (no database text can)."""
    return UNSAFE_TEXT.search(value) is not None


def json_depth(raw: bytes) -> int:
    """The deepest nesting of arrays and objects in a JSON text, strings skipped."""
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", raw))
    depth = deepest = 0
    for byte in brackets:
        depth += 1 if byte in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


class UnsafeText(ParseError):
    """Text no column can hold at `field` (its path in the body; None: the body itself)."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field


def check_text(data: Any, where: str = "") -> None:
    """UnsafeText naming the first string (key or value) of `data` no column can hold."""
    stack: list[tuple[Any, str]] = [(data, where)]
    while stack:
        value, at = stack.pop()
        if isinstance(value, str):
            if unsafe_text(value):
                raise UnsafeText(at or None, "text must not contain NUL or unpaired surrogates")
        elif isinstance(value, Mapping):
            for key, item in value.items():
                if isinstance(key, str) and unsafe_text(key):
                    raise UnsafeText(at or None, "a key holds NUL or an unpaired surrogate")
                stack.append((item, path_join(at, field_path(str(key)))))
        elif isinstance(value, list | tuple):
            stack.extend((item, f"{at}[{i}]") for i, item in enumerate(value))


def _int(text: str) -> int:
    number = int(text)
    if abs(number) > MAX_INT:
        raise ValueError(f"the number {text[:20]}... is out of range (at most 64 bits)")
    return number


def _float(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:20]} is out of range")
    return number


def _constant(text: str) -> float:
    raise ValueError(f"{text} is not valid JSON")


def json_parse(stream: IO[Any], parser_context: Mapping[str, Any] | None) -> Any:
    """The JSON body of a request, refused (ParseError) past the limits above."""
    encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
    raw = stream.read()
    if json_depth(raw) > MAX_DEPTH:
        raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels")
    try:
        text = codecs.decode(raw, encoding)
        data = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise ParseError(f"JSON parse error - {exc}") from None
    check_text(data)
    return data


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser with limits on depth, numbers and text (the API's default)."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        return json_parse(stream, parser_context)


class LargeJSONParser(parsers.BaseParser):
    """JSON as JSONParser parses it, for a route whose bodies may be larger than others (a
    town file: kernel.limits, checked by the size middleware first). DRF hands
    its own JSON parser Django's `request.body`, which stops at DATA_UPLOAD_MAX_MEMORY_SIZE;
    this one reads the stream."""

    media_type = "application/json"

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        return json_parse(stream, parser_context)


def _check_form(data: Any) -> None:
    """check_text on a form's fields, each named as it is (not as a list's item)."""
    for key in data:
        for value in data.getlist(key):
            check_text({key: value})


class FormParser(parsers.FormParser):
    """DRF's form parser, refusing text no column can hold."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        data = super().parse(stream, media_type, parser_context)
        _check_form(data)
        return data


class MultiPartParser(parsers.MultiPartParser):
    """DRF's multipart parser, refusing text no column can hold (files are not read)."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        parsed = super().parse(stream, media_type, parser_context)
        _check_form(parsed.data)
        return parsed
