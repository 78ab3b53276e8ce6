"""Signals evaluations send for the layers above (integration's webhooks); evaluations
never import their receivers."""

from __future__ import annotations

from django.dispatch import Signal

# An evaluation ended, once: sent with evaluation (evaluations.models.Evaluation, reloaded)
# and outcome ("done" or "failed"), right after the write that ended it.
evaluation_ended = Signal()
