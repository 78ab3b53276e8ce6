"""The shipped Smallville bases as the reference implementation stores them: residents, their
start tiles and seed statements (`base_load`), and as base files (`reference_document`)."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from world.towns import DATA_DIR

from .format import FORMAT

# base name -> whisper CSV in the town folder (seed memories).
BASES = {
    "base_the_ville_n25": "agent_history_init_n25.csv",
    "base_the_ville_isabella_maria_klaus": "agent_history_init_n3.csv",
}


class UnknownBase(ValueError):
    pass


@dataclass(frozen=True)
class Persona:
    name: str
    identity: dict[str, Any]  # the Agent fields of agents.persona.IDENTITY_FIELDS
    tile: tuple[int, int]


@dataclass(frozen=True)
class Base:
    name: str
    town: str
    start_time: datetime
    sec_per_step: int
    personas: tuple[Persona, ...]
    # (kind, at, params) of each scenario, as runtime/scenarios.py applies them.
    scenarios: tuple[tuple[str, datetime, dict[str, Any]], ...] = ()


def _identity(scratch: dict[str, Any], spatial: dict[str, Any], seeds: list[str]) -> dict[str, Any]:
    return {
        "first_name": scratch["first_name"],
        "last_name": scratch["last_name"],
        "age": scratch.get("age"),
        "innate": scratch.get("innate") or "",
        "learned": scratch.get("learned") or "",
        "currently": scratch.get("currently") or "",
        "lifestyle": scratch.get("lifestyle") or "",
        "living_area": scratch.get("living_area") or "",
        "daily_plan_requirement": scratch.get("daily_plan_req") or "",
        "vision_radius": int(scratch.get("vision_r", 8)),
        "attention_bandwidth": int(scratch.get("att_bandwidth", 8)),
        "retention": int(scratch.get("retention", 8)),
        "recency_decay": float(scratch.get("recency_decay", 0.995)),
        "reflection_threshold": int(scratch.get("importance_trigger_max", 150)),
        "spatial_memory": spatial,
        "seed_statements": seeds,
        "user_controlled": False,
    }


def _seeds(path: Path) -> dict[str, list[str]]:
    with path.open(newline="") as handle:
        return {
            row["Name"].strip(): [s.strip() for s in row["Whisper"].split(";") if s.strip()]
            for row in csv.DictReader(handle)
        }


@cache
def base_load(name: str) -> Base:
    """Read a shipped base (cached: the files never change at run time)."""
    if name not in BASES:
        raise UnknownBase(f"unknown base {name!r}; choose one of {', '.join(sorted(BASES))}")
    folder = DATA_DIR / name
    meta = json.loads((folder / "meta.json").read_text())
    environment = json.loads((folder / "environment_0.json").read_text())
    seeds = _seeds(DATA_DIR / meta["maze_name"] / BASES[name])
    personas = []
    for persona_name in meta["persona_names"]:
        persona_dir = folder / "personas" / persona_name
        scratch = json.loads((persona_dir / "scratch.json").read_text())
        spatial = json.loads((persona_dir / "spatial_memory.json").read_text())
        start = environment[persona_name]
        personas.append(
            Persona(
                name=persona_name,
                identity=_identity(scratch, spatial, seeds.get(persona_name, [])),
                tile=(int(start["x"]), int(start["y"])),
            )
        )
    start_time = datetime.strptime(meta["curr_time"], "%B %d, %Y, %H:%M:%S").replace(tzinfo=UTC)
    return Base(
        name=name,
        town=meta["maze_name"],
        start_time=start_time,
        sec_per_step=int(meta["sec_per_step"]),
        personas=tuple(personas),
    )


# Identity keys of a resident in a base file, as agents.bases.services reads them back.
_RESIDENT_KEYS = (
    "first_name", "last_name", "age", "innate", "learned", "currently", "lifestyle",
    "living_area", "daily_plan_requirement", "spatial_memory", "vision_radius",
    "attention_bandwidth", "retention", "recency_decay", "reflection_threshold",
)  # fmt: skip


def reference_document(name: str) -> dict[str, Any]:
    """The shipped base `name` as a base file (seed statements as seed memories)."""
    loaded = base_load(name)
    residents = []
    for persona in loaded.personas:
        resident: dict[str, Any] = {"name": persona.name}
        resident |= {key: persona.identity[key] for key in _RESIDENT_KEYS}
        resident["start"] = {"tile": list(persona.tile)}
        resident["seed_memories"] = list(persona.identity["seed_statements"])
        residents.append({k: v for k, v in resident.items() if v is not None})
    return {
        "format": FORMAT,
        "name": name,
        "description": f"the reference implementation's {name}",
        "town": loaded.town,
        "start_time": loaded.start_time.isoformat(),
        "sec_per_step": loaded.sec_per_step,
        "residents": residents,
        "measures": _measures(loaded.town),
    }


# What evaluations of the reference's bases measure by name, by town (data, not code).
MEASURES_DIR = Path(__file__).resolve().parent / "data" / "reference"


def _measures(town: str) -> dict[str, Any]:
    path = MEASURES_DIR / f"{town}_measures.json"
    measures: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    return measures
