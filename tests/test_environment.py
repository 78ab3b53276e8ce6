"""Settings read strictly from the environment: a value that is not of its kind stops the
start with the variable named, never silently becomes false or the default."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from smallville_project.environment import (
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_int_or_none,
    env_networks,
    env_rate,
    env_url,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE", "tru"),  # a boolean
        ("SMALLVILLE_SHARD_SIZE", "25.5"),  # a whole number
        ("SMALLVILLE_LLM_TIMEOUT", "a minute"),  # a number
        ("SMALLVILLE_CACHE_URL", "127.0.0.1:6379"),  # a URL
        ("SMALLVILLE_THROTTLE_RUN", "30 a minute"),  # a rate
        ("SMALLVILLE_ENGINE", "bariere"),  # one of a few names
        ("SMALLVILLE_METRICS_ALLOW", "10.0.0.0/8,the office"),  # addresses or networks
    ],
)
def test_manage_py_check_fails_naming_a_bad_variable(name: str, value: str) -> None:
    env = {**os.environ, name: value}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("django.core.exceptions.ImproperlyConfigured: " + name), last


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("ON", True), ("1", True), ("no", False), ("0", False), (" ", True)],
)
def test_booleans_in_any_case_and_blank_is_the_default(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: bool
) -> None:
    monkeypatch.setenv("SV_FLAG", value)
    assert env_bool("SV_FLAG", True) is expected


@pytest.mark.parametrize("value", ["tru", "y", "enabled", "2"])
def test_anything_else_is_not_a_boolean(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("SV_FLAG", value)
    with pytest.raises(ImproperlyConfigured, match="SV_FLAG"):
        env_bool("SV_FLAG", False)


def test_numbers_their_bounds_and_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SV_N", "12")
    assert env_int("SV_N", 3) == 12 and env_float("SV_N", 1.0) == 12.0
    with pytest.raises(ImproperlyConfigured, match="SV_N must be at least 20"):
        env_int("SV_N", 3, minimum=20)
    for bad in ("nan", "inf"):
        monkeypatch.setenv("SV_N", bad)
        with pytest.raises(ImproperlyConfigured, match="SV_N"):
            env_float("SV_N", 1.0)
    monkeypatch.setenv("SV_URL", "redis://:s3cret@cache.internal:6380/2")
    assert env_url("SV_URL", "", schemes=("redis",)).endswith("/2")
    monkeypatch.setenv("SV_URL", "http://:s3cret@cache.internal/")
    with pytest.raises(ImproperlyConfigured, match="SV_URL") as refused:
        env_url("SV_URL", "", schemes=("redis",))
    assert "s3cret" not in str(refused.value)  # a URL's password is never echoed


def test_rates_choices_and_limits_that_may_be_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for good in ("30/minute", "5/s", "100/day"):
        monkeypatch.setenv("SV_RATE", good)
        assert env_rate("SV_RATE", "1/s") == good
    for bad in ("30", "30/fortnight", "many/minute"):
        monkeypatch.setenv("SV_RATE", bad)
        with pytest.raises(ImproperlyConfigured, match="SV_RATE"):
            env_rate("SV_RATE", "1/s")
    monkeypatch.setenv("SV_CHOICE", "ahead")
    assert env_choice("SV_CHOICE", "barrier", choices=("barrier", "ahead")) == "ahead"
    monkeypatch.setenv("SV_CHOICE", "Ahead")
    with pytest.raises(ImproperlyConfigured, match="SV_CHOICE must be one of barrier, ahead"):
        env_choice("SV_CHOICE", "barrier", choices=("barrier", "ahead"))
    monkeypatch.delenv("SV_LIMIT", raising=False)
    assert env_int_or_none("SV_LIMIT", minimum=0) is None
    monkeypatch.setenv("SV_LIMIT", "0")
    assert env_int_or_none("SV_LIMIT", minimum=0) == 0
    monkeypatch.setenv("SV_LIMIT", "ten")
    with pytest.raises(ImproperlyConfigured, match="SV_LIMIT"):
        env_int_or_none("SV_LIMIT", minimum=0)


def test_networks_are_addresses_or_networks_each_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SV_NETS", " 10.1.0.0/16, 192.168.7.9 ,::1/128,")
    assert env_networks("SV_NETS", "") == ["10.1.0.0/16", "192.168.7.9", "::1/128"]
    monkeypatch.setenv("SV_NETS", "10.1.0.0/16,10.300.0.1")
    with pytest.raises(ImproperlyConfigured, match=r"SV_NETS .*'10\.300\.0\.1'"):
        env_networks("SV_NETS", "")
