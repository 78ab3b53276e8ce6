"""The parts an experiment is made of, alone: a variant's edits of its base, and the figures
a report draws."""

from __future__ import annotations

from experiments.figures import figure_diffusion, figure_measures
from experiments.making import variant_base_document, variant_edits_base

from .town import NEWS, glassblowers

PNG = b"\x89PNG\r\n\x1a\n"


def test_a_variant_leaves_out_a_seed_memory_adds_one_and_a_scenario() -> None:
    base = glassblowers()
    base["scenarios"] = [
        {"kind": "leave", "at": "2024-09-02T18:00:00Z", "resident": "Quill Marten"},
    ]
    whisper = {
        "kind": "whisper",
        "at": "2024-09-02T12:00:00Z",
        "resident": "Tamsin Oakes",
        "statement": NEWS,
    }
    variant = {
        "name": "told at noon",
        "seed_memories": {
            "remove": [{"resident": "Tamsin Oakes", "containing": "KITE WORKSHOP"}],
            "add": [{"resident": "Juno Prask", "memory": "Juno Prask flies kites"}],
        },
        "scenarios": {"add": [whisper], "cancel": [1]},
    }
    assert variant_edits_base(variant)
    edited = variant_base_document(base, variant, "glassblowers, told at noon")
    tamsin, _, juno, _ = edited["residents"]
    assert tamsin["seed_memories"] == []  # both held the words, in any case
    assert juno["seed_memories"][-1] == "Juno Prask flies kites"
    assert edited["scenarios"] == [whisper] and edited["name"] == "glassblowers, told at noon"
    assert glassblowers()["residents"][0]["seed_memories"][0] == NEWS  # the start is untouched
    assert not variant_edits_base(
        {"seed_memories": {"remove": [], "add": []}, "scenarios": {"add": [], "cancel": []}}
    )


def test_the_figures_are_pictures() -> None:
    def point(hours: float, mean: float) -> dict[str, float]:
        return {"hours": hours, "mean": mean, "low": mean - 1, "high": mean + 1, "n": 2}

    results = {
        "variants": [
            {
                "name": name,
                "measures": {"holders": point(0, top)},
                "curves": {"news": [point(0, 0), point(1, top)]},
            }
            for name, top in (("told", 3.0), ("not told", 1.0))
        ]
    }
    assert figure_diffusion(results=results, fact="news", residents=4, offset=0).startswith(PNG)
    assert figure_diffusion(results=results, fact="news", residents=4, offset=6).startswith(PNG)
    assert figure_measures(results=results).startswith(PNG)
