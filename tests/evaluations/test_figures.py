"""The report's figures are PNG images drawn from the measures given."""

from __future__ import annotations

import io

from matplotlib import image

from evaluations.figures import figure_diffusion, figure_trueskill
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
