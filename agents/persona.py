"""A resident's persona: the names of its identity fields, written once for every layer
that copies them (the projection of agent.created, a base's arrivals, the API's shapes)."""

from __future__ import annotations

# Who the resident is, as the paper's seed describes it (the reference's scratch fields).
PERSONA_FIELDS = (
    "first_name",
    "last_name",
    "age",
    "innate",
    "learned",
    "currently",
    "lifestyle",
    "living_area",
    "daily_plan_requirement",
)
# How its memory and attention work (the paper's parameters, per resident).
PARAMETER_FIELDS = (
    "vision_radius",
    "attention_bandwidth",
    "retention",
    "recency_decay",
    "reflection_threshold",
)
# What agent.created gives a resident's row beyond its name.
IDENTITY_FIELDS = (
    *PERSONA_FIELDS,
    *PARAMETER_FIELDS,
    "spatial_memory",
    "seed_statements",
    "user_controlled",
)
