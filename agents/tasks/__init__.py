"""The mind's prompt tasks, one folder each: a prompt task is one unit of the mind.

`agents/tasks/<task>/` holds what a task is: its template (`template.txt`, the prompt a
model is sent), its answer's schema (pydantic, strict), its offline rule (the stand-in's
answer, built from the rules in `agents/offline/`) and its registration
(`task_register`), so "how does a resident decide to talk" is answered in `react/`. The
cognition calls a task by name (`llm_run`); `llm/` only renders, admits, sends and
records. Importing this package registers every task.
"""

from __future__ import annotations

from agents.tasks import (  # noqa: F401  (each registers its task)
    conversation_summary,
    conversation_takeaways,
    converse_line,
    day_plan,
    decompose,
    hourly_schedule,
    importance,
    importance_many,
    intention,
    interview,
    react,
    reflection_insights,
    reflection_questions,
    relationship,
    respond_event,
    summary,
)
