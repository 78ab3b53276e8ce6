"""The JSON log format (kernel/logformat.py) and what a line is about
(kernel/logcontext.py): one object per line with the time, level, logger and message, the
fields of the blocks around it, carried into the pools' threads."""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from datetime import datetime

from kernel.logcontext import about, current
from kernel.logformat import JsonFormatter
from kernel.pools import pool


def line(message: str, *args: object, exc: bool = False) -> dict[str, object]:
    record = logging.LogRecord("lab.town", logging.WARNING, __file__, 1, message, args, None)
    if exc:
        try:
            raise ValueError("the well ran dry")
        except ValueError:
            import sys

            record.exc_info = sys.exc_info()
    text = JsonFormatter().format(record)
    assert "\n" not in text
    parsed: dict[str, object] = json.loads(text)
    return parsed


def test_a_line_is_one_object_with_time_level_logger_and_message() -> None:
    found = line("Odile Brandt opened %s at %d", "the ferry kiosk", 6)
    assert found["level"] == "WARNING" and found["logger"] == "lab.town"
    assert found["message"] == "Odile Brandt opened the ferry kiosk at 6"
    assert datetime.fromisoformat(str(found["time"])).utcoffset() is not None
    assert "request_id" not in found and "simulation" not in found


def test_a_line_says_what_the_blocks_around_it_are_about() -> None:
    with about(request_id="r-41", simulation=7), about(resident="Tamsin Ure", step=12):
        found = line("thinking")
        assert current() == {
            "request_id": "r-41",
            "simulation": 7,
            "resident": "Tamsin Ure",
            "step": 12,
        }
    assert (found["request_id"], found["simulation"], found["resident"], found["step"]) == (
        "r-41",
        7,
        "Tamsin Ure",
        12,
    )
    assert line("after")["message"] == "after" and current() == {}


def test_a_multiline_message_and_its_traceback_stay_on_one_line() -> None:
    found = line("two\nlines «quoted»", exc=True)
    assert found["message"] == "two\nlines «quoted»"
    assert "ValueError: the well ran dry" in str(found["exception"])


MOOD: ContextVar[str] = ContextVar("a_made_up_setting_of_the_caller", default="calm")


def test_what_the_work_is_about_goes_with_it_into_a_pools_threads_and_nothing_else() -> None:
    """Only the log fields travel: the caller's other context variables (a call's
    priority, a broker in use) stay its own, or work in the pool would behave otherwise."""
    token = MOOD.set("hurried")
    try:
        with about(simulation=3, step=40):
            seen = list(
                pool("agent-step").map(lambda n: (n, dict(current()), MOOD.get()), ["Ana", "Bo"])
            )
    finally:
        MOOD.reset(token)
    about_it = {"simulation": 3, "step": 40}
    assert seen == [("Ana", about_it, "calm"), ("Bo", about_it, "calm")]
    assert pool("agent-step").submit(lambda: dict(current())).result() == {}


def test_a_line_about_a_request_logged_after_its_middleware_carries_its_id() -> None:
    record = logging.LogRecord(
        "django.request", logging.WARNING, __file__, 1, "Not Found", (), None
    )
    record.request = type("Request", (), {"request_id": "r-77"})()
    assert json.loads(JsonFormatter().format(record))["request_id"] == "r-77"
