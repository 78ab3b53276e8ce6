"""Environment values read strictly: a value that is not of its kind stops the start with
the variable named (ImproperlyConfigured), never silently becomes the default or false."""

from __future__ import annotations

import os
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name: str) -> str | None:
    """The variable's value, or None when it is unset or blank (blank means the default)."""
    value = os.environ.get(name)
    return None if value is None or not value.strip() else value.strip()


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    raise ImproperlyConfigured(
        f"{name} must be one of true, false, 1, 0, yes, no, on, off; got {value!r}"
    )


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {value!r}") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}; got {number}")
    return number


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number; got {value!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ImproperlyConfigured(f"{name} must be a finite number; got {value!r}")
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}; got {number}")
    return number


def env_str(name: str, default: str) -> str:
    value = os.environ.get(name)
    return default if value is None else value


def env_url(name: str, default: str, *, schemes: tuple[str, ...]) -> str:
    """A URL of one of `schemes` with a host (or a socket path, for postgres)."""
    value = _raw(name)
    if value is None:
        return default
    parsed = urlparse(value)
    if parsed.scheme not in schemes:
        raise ImproperlyConfigured(
            f"{name} must be a URL starting {' or '.join(f'{s}://' for s in schemes)}; "
            f"got one starting {parsed.scheme + '://' if parsed.scheme else value[:12]!r}"
        )
    if not parsed.netloc and "host=" not in parsed.query:
        raise ImproperlyConfigured(f"{name} must name a host")
    return value


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


def env_int_or_none(name: str, *, minimum: int | None = None) -> int | None:
    """A whole number, or None when the variable is unset or blank (no limit)."""
    if _raw(name) is None:
        return None
    return env_int(name, 0, minimum=minimum)


def env_choice(name: str, default: str, *, choices: tuple[str, ...]) -> str:
    value = _raw(name)
    if value is None:
        return default
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return value


_PERIODS = {"s", "sec", "second", "m", "min", "minute", "h", "hour", "d", "day"}


def env_rate(name: str, default: str) -> str:
    """A rate as DRF writes it: a whole number, a slash and a period (`30/minute`)."""
    value = _raw(name)
    if value is None:
        return default
    count, _, period = value.partition("/")
    if not count.strip().isdigit() or period.strip() not in _PERIODS:
        raise ImproperlyConfigured(
            f"{name} must be a rate such as 30/minute (per s, m, h or d); got {value!r}"
        )
    return value


def env_networks(name: str, default: str) -> list[str]:
    """Addresses or networks, comma-separated (`10.0.0.0/8,192.168.1.7`), each checked."""
    import ipaddress

    items = env_list(name, default)
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} must be addresses or networks, comma-separated; got {item!r}"
            ) from None
    return items
