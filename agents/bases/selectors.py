"""Reads of bases: those a user may see and use (their own and the shipped ones)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet

from world.models import Base as BaseRow

from .reference import UnknownBase
from .services import base_shipped, bases_shipped_ensure, shipped_names


def bases_visible(*, user: User) -> QuerySet[BaseRow]:
    """The user's bases and the shipped ones (imported on first use)."""
    bases_shipped_ensure()
    return BaseRow.objects.filter(Q(owner__isnull=True) | Q(owner=user))


def base_resolve(*, user: User, base: str | int) -> BaseRow:
    """A base the user may use, by id or by name (their own first, then a shipped one);
    UnknownBase otherwise."""
    if isinstance(base, int) or base.isdigit():
        found = bases_visible(user=user).filter(pk=int(base)).first()
    elif base in shipped_names():
        found = base_shipped(base)
    else:
        found = BaseRow.objects.filter(owner=user, name__iexact=base).first()
    if found is None:
        raise UnknownBase(
            f"{base!r} is not a base; give a base's id, or the name of one of yours or of a "
            f"shipped one: {', '.join(shipped_names())}"
        )
    return found
