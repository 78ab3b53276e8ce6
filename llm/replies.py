"""Reading a model's reply: the JSON object in it, fenced or surrounded by prose or not,
as the task's output schema."""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, ValidationError


class OutputInvalid(ValueError):
    pass


def parse_reply(raw: str, schema: type[BaseModel]) -> BaseModel:
    """The reply as `schema`: the JSON object in it, fenced or surrounded by prose or not."""
    text = raw.strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1).strip()
    if not text.startswith("{") and "{" in text:
        text = text[text.index("{") : text.rindex("}") + 1]
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise OutputInvalid(f"not valid JSON: {exc}") from None
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'reply'}: {err['msg']}"
            for err in exc.errors()
        )
        raise OutputInvalid(f"does not match the schema: {problems}") from None
