"""An evaluation's report: one self-contained HTML page of its tables and figures (PNG,
inlined as base64, so nothing is stored and nothing loads from elsewhere)."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from typing import Any

from django.utils.html import escape

from .figures import figure_diffusion, figure_relationships, figure_trueskill
from .models import Evaluation
from .ranking import ConditionRating

_STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em}"
    "td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}"
    "img{max-width:100%}.note{color:#666;font-size:.9em}"
)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if value is None:
        return "-"
    return escape(str(value))


def _table(head: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><tr>{header}</tr>{body}</table>"


def _figure(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode()
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def _interviews(result: dict[str, Any], figure: bytes | None) -> str:
    ratings = [ConditionRating(**r) for r in result["trueskill"]]
    parts = [
        "<h2>Interviews: believability by condition</h2>",
        f'<p class="note">{escape(result["judge_note"])} ({result["answers"]} answers, '
        f"{result['judged_questions']} questions judged; judge backend "
        f"{escape(result['judge_backend'])}, model {escape(result.get('judge_model', '-'))}). "
        f"Paper: {escape(result['paper'])}.</p>",
        _table(
            ["condition", "TrueSkill mu", "sigma"], [(r.condition, r.mu, r.sigma) for r in ratings]
        ),
    ]
    if figure is not None:
        parts.append(_figure(figure, "TrueSkill per condition"))
    if result.get("trueskill_model_judged_only"):
        parts.append("<p>TrueSkill from the questions the model itself ranked:</p>")
        parts.append(
            _table(
                ["condition", "TrueSkill mu", "sigma"],
                [
                    (r["condition"], r["mu"], r["sigma"])
                    for r in result["trueskill_model_judged_only"]
                ],
            )
        )
    stats = result["statistics"]
    if stats is not None:
        parts += [
            _table(
                ["Kruskal-Wallis H", "p", "Cohen's d (full vs no_memory)"],
                [(stats["kruskal_h"], stats["kruskal_p"], stats["cohens_d_full_vs_no_memory"])],
            ),
            _table(
                ["condition", "condition", "Mann-Whitney U", "p (two-sided)"],
                [(t["a"], t["b"], t["u"], t["p"]) for t in stats["pairwise"]],
            ),
        ]
    by_category = result["mean_rank_by_category"]
    conditions = sorted({c for ranks in by_category.values() for c in ranks})
    parts.append("<p>Mean judged rank (1 is best) by category:</p>")
    parts.append(
        _table(
            ["category", *conditions],
            [(cat, *(ranks.get(c) for c in conditions)) for cat, ranks in by_category.items()],
        )
    )
    return "".join(parts)


def _simulation(pk: str, measured: dict[str, Any], figure: bytes | None) -> str:
    parts = [f"<h2>Simulation {escape(pk)}</h2>"]
    news = measured.get("news", [])
    if news:
        parts.append(
            _table(
                ["fact", "source", "holders among the others", "with the source (as published)"],
                [
                    (n["fact"], n["source"], n["of_the_others"], n["paper_denominator"])
                    for n in news
                ],
            )
        )
        if figure is not None:
            parts.append(_figure(figure, "diffusion over time"))
    events = measured.get("events", [])
    if events:
        parts.append(
            _table(
                ["event", "invited", "committed", "came", "invited and came", "window"],
                [
                    (
                        e["event"],
                        e["invited"],
                        e["committed"],
                        e["came"],
                        ", ".join(e["invited_and_came"]) or "-",
                        e["window"],
                    )
                    for e in events
                ],
            )
        )
    if "network_density" in measured:
        density = measured["network_density"]
        parts.append("<p>Network density from the memories naming one another:</p>")
        parts.append(
            _table(
                ["start", "now"],
                [(density["start"]["density"], density["end"]["density"])],
            )
        )
    return "".join(parts)


def _relationships(result: dict[str, Any], figure: bytes) -> str:
    start, now = result["start"], result["now"]
    return "".join(
        [
            "<h2>Relationships: \u201cDo you know &lt;name&gt;?\u201d</h2>",
            _table(
                ["moment", "yes answers", "connected pairs", "of", "density"],
                [
                    (m, r["claims"], r["pairs"], r["possible_pairs"], r["density"])
                    for m, r in (("start", start), ("now", now))
                ],
            ),
            f'<p class="note">Paper: {escape(result["paper"])}.</p>',
            _figure(figure, "relationship graph at the start and now"),
        ]
    )


def _hallucination(result: dict[str, Any]) -> str:
    return "".join(
        [
            "<h2>Hallucination</h2>",
            _table(
                ["yes answers", "hallucinated (no memory names the person)", "rate"],
                [(result["claims"], result["hallucinated"], result["rate"])],
            ),
            _table(
                ["resident", "about", "answer"],
                [(e["resident"], e["about"], e["answer"]) for e in result["examples"]],
            )
            if result["examples"]
            else "",
        ]
    )


def report_figures(*, evaluation: Evaluation) -> dict[str, bytes]:
    """The report's figures as PNG files by name (for `bench evaluation --figures`)."""
    result = evaluation.result
    figures: dict[str, bytes] = {}
    if result.get("interviews", {}).get("trueskill"):
        ratings = [ConditionRating(**r) for r in result["interviews"]["trueskill"]]
        figures["trueskill.png"] = figure_trueskill(ratings=ratings)
    if "relationships" in result:
        r = result["relationships"]
        figures["relationships.png"] = figure_relationships(
            residents=r["residents"], before=r["start"]["edges"], after=r["now"]["edges"]
        )
    subject = str(result.get("subject", evaluation.simulation_id))
    measured = result.get("simulations", {}).get(subject, {})
    news = {n["fact"]: n for n in measured.get("news", [])}
    if news:
        residents = evaluation.simulation.agents.count()
        figures["diffusion.png"] = figure_diffusion(news=news, residents=residents)
    return figures


def _facts(facts: list[dict[str, Any]]) -> str:
    rows = []
    for f in facts:
        asked, memory = f["by_interview"], f["by_memory"]
        rows.append(
            (
                f["fact"],
                f["source"] or "-",
                asked["knows_among_the_others"],
                len(asked["hallucinated"]),
                ", ".join(asked["remembered_but_denied"]) or "-",
                memory["of_the_others"],
                f"{f['agreement']['holders_by_memory']} / {f['agreement']['holders_by_interview']}"
                f" / {f['agreement']['agreeing']} ({f['agreement']['percent']}%)",
            )
        )
    chains = [
        (f["fact"], who, r["from"] or "-", r["hop"], r["first_heard"])
        for f in facts
        for who, r in f["by_memory"]["residents"].items()
    ]
    return "".join(
        [
            "<h2>Diffusion: “Did you hear that ...?”</h2>",
            _table(
                [
                    "fact",
                    "source",
                    "say yes, memory agrees (of the others)",
                    "yes with no memory",
                    "memory holds it, said no",
                    "memory holds it (of the others)",
                    "holders by memory / by interview / agreeing",
                ],
                rows,
            ),
            "<p>Who heard it from whom, and when (from the memory stream):</p>",
            _table(["fact", "resident", "heard from", "hop", "first heard"], chains)
            if chains
            else "<p>Nobody but the source holds any of them.</p>",
        ]
    )


def report_html(*, evaluation: Evaluation) -> str:
    """The page of a done evaluation."""
    result = evaluation.result
    figures = report_figures(evaluation=evaluation)
    title = f"Evaluation {evaluation.number} of simulation {evaluation.simulation_id}"
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>",
        f"<style>{_STYLE}</style></head><body><h1>{escape(title)}</h1>",
        _table(
            ["step", "kinds", "conditions", "finished"],
            [
                (
                    evaluation.step,
                    ", ".join(evaluation.kinds),
                    ", ".join(evaluation.conditions),
                    evaluation.finished_at,
                )
            ],
        ),
        f'<p class="note">{escape(result.get("backend_note", ""))}</p>',
    ]
    if "subject_note" in result:
        parts.append(
            f"<p>Measured at step {evaluation.step} ({escape(result['sim_time'])}): "
            f"{escape(result['subject_note'])}.</p>"
        )
    if result.get("diffusion", {}).get("facts"):
        parts.append(_facts(result["diffusion"]["facts"]))
    if "interviews" in result:
        parts.append(_interviews(result["interviews"], figures.get("trueskill.png")))
    if "relationships" in result:
        parts.append(_relationships(result["relationships"], figures["relationships.png"]))
    if "hallucination" in result:
        parts.append(_hallucination(result["hallucination"]))
    for pk, measured in result.get("simulations", {}).items():
        if measured:
            main = pk == str(result.get("subject", evaluation.simulation_id))
            parts.append(_simulation(pk, measured, figures.get("diffusion.png") if main else None))
    parts.append("</body></html>")
    return "".join(parts)
