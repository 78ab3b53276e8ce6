"""A simulation's config: a typed, versioned schema, validated at create and fork.

Stored normalised: validated, in canonical types, every key present (so a default that
changes later does not change a simulation made before). A config without `version`
was stored before the schema: its cognition is the minimal one unless it names one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agents.cognition import cognition_names
from world.fieldpath import loc_errors

Ablation = Literal["no_reflection", "no_planning", "no_observation_retrieval"]
MAX_WEIGHT = 1000.0
# Five sim minutes at 10 s a step: a rating has that long to come back before it is awaited.
IMPORTANCE_DELAY = 30


class RetrievalWeights(BaseModel):
    """The weights of retrieval's three scores (the paper: 1, 1, 1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    recency: float = Field(1.0, ge=0, le=MAX_WEIGHT, allow_inf_nan=False)
    importance: float = Field(1.0, ge=0, le=MAX_WEIGHT, allow_inf_nan=False)
    relevance: float = Field(1.0, ge=0, le=MAX_WEIGHT, allow_inf_nan=False)


class SimulationConfig(BaseModel):
    """What a simulation's residents run on; every key optional."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = Field(1, description="the schema's version")
    cognition: str = Field(
        "paper",
        max_length=50,
        description="the cognition residents run: 'paper' (the paper's architecture) or "
        "'minimal' (walking only, for engine benchmarks)",
    )
    ablations: list[Ablation] = Field(
        default_factory=list, max_length=3, description="parts of the architecture turned off"
    )
    reflection_threshold: int | None = Field(
        None,
        ge=1,
        le=1_000_000,
        description="importance that triggers a reflection; default: each persona's own",
    )
    importance_delay: int = Field(
        IMPORTANCE_DELAY,
        ge=0,
        le=8_640,
        description="steps after which the model's importance rating of a memory made in a "
        "step replaces its provisional one (0: rated in the step, on the critical path)",
    )
    retrieval_weights: Literal["paper", "reference"] | RetrievalWeights = Field(
        "paper", description="a preset ('paper' 1/1/1, 'reference' 0.5/2/3) or the weights"
    )

    @field_validator("cognition")
    @classmethod
    def _known_cognition(cls, name: str) -> str:
        known = cognition_names()
        if name not in known:
            raise ValueError(f"unknown cognition {name!r}; one of {', '.join(known)}")
        return name

    @field_validator("ablations")
    @classmethod
    def _unique(cls, ablations: list[str]) -> list[str]:
        return sorted(set(ablations))


class ConfigInvalid(ValueError):
    """The config breaks its schema; `errors` maps each bad field to its messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))


def config_normalise(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """The stored form of a config, or ConfigInvalid with field-level messages."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ConfigInvalid({"config": ["must be a JSON object"]})
    try:
        config = SimulationConfig.model_validate(dict(raw))
    except ValidationError as exc:
        raise ConfigInvalid(loc_errors(exc.errors(), prefix="config")) from exc
    return config.model_dump(mode="json")
