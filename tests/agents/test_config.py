"""A simulation's config (agents/config.py): stored normalised, refused field by field."""

from __future__ import annotations

import pytest

from agents.config import ConfigInvalid, config_normalise


def test_a_config_is_stored_with_every_key_and_ablations_sorted_once() -> None:
    stored = config_normalise({"ablations": ["no_planning", "no_reflection", "no_planning"]})
    assert stored["version"] == 1
    assert stored["cognition"] == "paper"
    assert stored["ablations"] == ["no_planning", "no_reflection"]
    assert config_normalise(stored) == stored
    assert config_normalise(None) == config_normalise({})


def test_a_bad_config_names_each_field() -> None:
    with pytest.raises(ConfigInvalid) as bad:
        config_normalise({"cognition": "oracle", "importance_delay": -1, "colour": "teal"})
    assert set(bad.value.errors) == {
        "config.cognition",
        "config.importance_delay",
        "config.colour",
    }
    with pytest.raises(ConfigInvalid) as not_object:
        config_normalise(["paper"])  # type: ignore[arg-type]
    assert not_object.value.errors == {"config": ["must be a JSON object"]}
