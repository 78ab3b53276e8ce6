"""Reading a model's reply (llm/replies.py): the JSON object in it, as the task's schema."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from llm.replies import OutputInvalid, parse_reply


class Kettle(BaseModel):
    colour: str
    litres: float


@pytest.mark.parametrize(
    "raw",
    [
        '{"colour": "teal", "litres": 1.5}',
        '```json\n{"colour": "teal", "litres": 1.5}\n```',
        'Here it is: {"colour": "teal", "litres": 1.5} -- hope that helps.',
    ],
    ids=["bare", "fenced", "in-prose"],
)
def test_the_object_in_a_reply_is_read_as_the_schema(raw: str) -> None:
    assert parse_reply(raw, Kettle) == Kettle(colour="teal", litres=1.5)


def test_a_reply_without_json_or_off_the_schema_is_invalid_with_a_reason() -> None:
    with pytest.raises(OutputInvalid, match="not valid JSON"):
        parse_reply("the kettle is teal", Kettle)
    with pytest.raises(OutputInvalid, match="litres"):
        parse_reply('{"colour": "teal"}', Kettle)
