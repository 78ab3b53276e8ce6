"""A made-up base for the experiments' tests: four glass-blowers of the shipped village,
one of whom knows a made-up piece of news (a fact no file outside the tests names)."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from tests.bases.test_bases_api import resident

NEWS = "Tamsin Oakes will open a kite workshop at the old mill on Sunday"


def glassblowers() -> dict[str, Any]:
    tamsin = resident("Tamsin Oakes", "Wren cottage")
    tamsin["seed_memories"] = [
        NEWS,
        "Tamsin Oakes wants the whole village to hear about the kite workshop",
    ]
    return {
        "name": "glassblowers",
        "town": "brindle_green",
        "start_time": "2024-09-02T09:00:00Z",
        "sec_per_step": 60,
        "residents": [
            tamsin,
            resident("Fenn Orlow", "Wren cottage"),
            resident("Juno Prask", "Alder house"),
            resident("Quill Marten", "Moss flat"),
        ],
        "measures": {"facts": [{"text": NEWS, "origin": "Tamsin Oakes"}]},
    }


def base_made(api: APIClient) -> int:
    made = api.post("/api/bases/", glassblowers(), format="json")
    assert made.status_code == 201, made.content
    return int(made.json()["id"])


def definition(base: int, **fields: Any) -> dict[str, Any]:
    """Two variants (as seeded; the news left out of Tamsin's seed memories) x two seeds."""
    return {
        "name": "kite news",
        "start": {"base": base},
        "span": {"steps": 30},
        "seeds": 2,
        "variants": [
            {"name": "as seeded"},
            {
                "name": "news left out",
                "seed_memories": {
                    "remove": [{"resident": "Tamsin Oakes", "containing": "kite workshop"}]
                },
            },
        ],
        **fields,
    }
