"""The commit rules of a tick, in the order they apply, and what runs after a commit.

Each rule takes the commit's context and the step's drafts (in agent-name order) and
returns the drafts to append. The order matters:

1. `drop_stale_actions`, 2. `drop_stale_moves` (controls): a resident a user took over,
   or sent elsewhere, while its step was being decided keeps still; before conversations
   are resolved, so a conversation's own actions (tagged) survive.
3. `resolve_conversations` (cognition): a conversation stands if none of its participants
   is in another; it displaces its partner's own plans for the step.
4. `resolve_occupancy` (cognition): a single-occupancy object goes to the first resident
   who takes it, among the actions left after conversations.
5. `reflection_due` (reflection): last, because the importance it counts towards the
   next reflection is that of the observations and conversations that stand.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.commit_context import CommitRule
from runtime.reflections import reflection_after_commit, reflection_due
from runtime.rules.conflicts import resolve_conversations, resolve_occupancy
from runtime.rules.controls import drop_stale_actions, drop_stale_moves
from world.models import Event, Simulation

COMMIT_RULES: tuple[CommitRule, ...] = (
    drop_stale_actions,
    drop_stale_moves,
    resolve_conversations,
    resolve_occupancy,
    reflection_due,
)

# Run once the commit's transaction is committed, with the events it appended.
AfterCommit = Callable[[Simulation, int, list[Event]], None]
AFTER_COMMIT: tuple[AfterCommit, ...] = (reflection_after_commit,)
