"""The typed errors of the language-model port; callers catch these, never the client's."""

from __future__ import annotations


class LLMError(Exception):
    """Base of every error the port raises."""


class UnknownTask(LLMError, KeyError):
    """No prompt task is registered under this name."""


class TaskInputError(LLMError, ValueError):
    """The inputs do not match the template's named placeholders."""


class ModelCallInTransaction(LLMError, RuntimeError):
    """`llm_run` was called inside a database transaction.

    A model call can take a minute: holding a transaction (and its row locks) open across
    it stalls other writers, and a rollback would erase the ledger row of a call that was
    made and paid for. Call the model first, then write its result in a transaction.
    """


class BudgetExhausted(LLMError):
    """The simulation has used its model-call budget; it is now `budget_exhausted`."""

    def __init__(self, message: str, *, simulation_id: int) -> None:
        super().__init__(message)
        self.simulation_id = simulation_id


class QuotaExceeded(LLMError):
    """The simulation's owner has made its model calls of the last day (a per-user quota,
    SMALLVILLE_USER_DAILY_CALLS or the user's own in the admin)."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after  # seconds until a call of the window ages out


class ModelCallFailed(LLMError):
    """A call ended without a valid output; its ledger row says why, attempt by attempt."""

    reason = "failed"

    def __init__(self, message: str, *, task: str, attempts: int) -> None:
        super().__init__(message)
        self.task = task
        self.attempts = attempts
        self.call_id: int | None = None  # the ledger row, set once it is recorded


class ModelOutputInvalid(ModelCallFailed):
    """Every reply, re-asks included, was malformed or broke the output schema."""

    reason = "invalid_output"


class ModelUnavailable(ModelCallFailed):
    """Rate limits, server errors or timeouts outlasted the retries."""

    reason = "unavailable"


class ModelRequestRejected(ModelCallFailed):
    """The server refused the request for a reason retrying cannot fix (401, 404, 400...)."""

    reason = "rejected"


class ProfileUnusable(ModelRequestRejected):
    """The call's model profile cannot be used as it stands (its key's environment variable
    is not set): it fails at once, before anything is counted or sent."""

    reason = "profile_unusable"
