"""The report's figures are PNG images drawn from the measures given."""

from __future__ import annotations

import io

from matplotlib import image

from evaluations.figures import figure_diffusion, figure_relationships, figure_trueskill
from evaluations.ranking import trueskill_rate


def _pixels(png: bytes):
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    return image.imread(io.BytesIO(png))


def test_diffusion_over_time_and_trueskill_are_drawn():
    news = {
        "party": {
            "source_holds_it": True,
            "residents": {
                "Maria Lopez": {"hop": 1, "first_heard": "2023-02-13 10:00"},
                "Klaus Mueller": {"hop": 2, "first_heard": "2023-02-13 15:30"},
            },
        }
    }
    drawn = _pixels(figure_diffusion(news=news, residents=3))
    assert drawn.shape[0] > 100 and drawn.shape[1] > 100
    ratings = trueskill_rate(rankings=[["full", "no_reflection", "no_memory"]] * 3)
    assert _pixels(figure_trueskill(ratings=ratings)).shape[1] > 100


def test_the_relationship_graph_draws_more_ink_for_more_pairs():
    residents = ["Isabella Rodriguez", "Klaus Mueller", "Maria Lopez", "Sam Moore"]
    before = [["Isabella Rodriguez", "Maria Lopez"]]
    after = [[a, b] for i, a in enumerate(residents) for b in residents[i + 1 :]]
    sparse = _pixels(figure_relationships(residents=residents, before=before, after=before))
    dense = _pixels(figure_relationships(residents=residents, before=before, after=after))
    assert sparse.shape == dense.shape and sparse.shape[1] > 2 * sparse.shape[0] * 0.8
    assert (dense[..., :3] < 0.9).sum() > (sparse[..., :3] < 0.9).sum()
