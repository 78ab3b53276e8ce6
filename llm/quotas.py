"""A user's quotas over all its simulations per rolling day: model calls and money."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import QuerySet, Sum
from django.utils import timezone

from .errors import QuotaExceeded
from .models import ModelCall, ModelQuota

QUOTA_WINDOW = timedelta(days=1)


def model_quota_check(*, owner_id: int) -> None:
    """QuotaExceeded when the owner made its quota of calls, or spent its quota of money,
    in the last day (the call that crosses the money quota completes, as with a budget)."""
    own = list(
        ModelQuota.objects.filter(user_id=owner_id).values_list("calls_per_day", "money_per_day")
    )
    limit = own[0][0] if own else settings.SMALLVILLE_USER_DAILY_CALLS
    money = own[0][1] if own else None
    if limit is None and money is None:
        return
    since = timezone.now() - QUOTA_WINDOW
    window = ModelCall.objects.filter(simulation__owner_id=owner_id, created_at__gte=since)
    if money is not None:
        spent = window.aggregate(spent=Sum("cost"))["spent"] or Decimal(0)
        if spent >= money:
            raise QuotaExceeded(
                f"the model money quota of {money} a day is used up: spent {spent:.4f}",
                retry_after=_retry_after(window, spent_first=True),
            )
    if limit is None or window.count() < limit:
        return
    raise QuotaExceeded(
        f"the model-call quota of {limit} calls a day is used up",
        retry_after=_retry_after(window, spent_first=False),
    )


def _retry_after(window: QuerySet[ModelCall], *, spent_first: bool) -> int:
    """Seconds until the oldest call of the window (the oldest that cost money, for the
    money quota) ages out of it."""
    calls = window.filter(cost__gt=0) if spent_first else window
    oldest = calls.order_by("created_at").values_list("created_at", flat=True).first()
    wait = (oldest + QUOTA_WINDOW - timezone.now()).total_seconds() if oldest else 60
    return max(1, int(wait))
