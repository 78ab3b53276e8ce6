"""An experiment's report: an HTML page with its figures inline, and the same as files (a
Markdown page, the figures as PNG, the results as JSON and CSV) for docs/ or a paper."""

from __future__ import annotations

import base64
import csv
import io
import json
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

from llm.models import ModelCall

from .figures import figure_diffusion, figure_measures
from .models import Experiment, RunStatus
from .selectors import experiment_runs
from .stats import measure_order

OFFLINE_NOTE = (
    "These runs used the offline backend: a deterministic rule-based stand-in, not a "
    "language model. Its numbers show that the mechanics work, not what a model would do."
)


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.3f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.0f}"


def _interval(m: dict[str, Any]) -> str:
    if m["mean"] is None:
        return "-"
    return f"{_fmt(m['mean'])} [{_fmt(m['low'])}, {_fmt(m['high'])}]"


def _offline(experiment: Experiment) -> bool:
    simulations = experiment.runs.exclude(simulation=None).values_list("simulation", flat=True)
    backends = set(
        ModelCall.objects.filter(simulation__in=simulations).values_list("backend", flat=True)
    )
    return "offline" in backends


def figures(experiment: Experiment) -> Iterator[tuple[str, str, bytes]]:
    """(file name, caption, PNG) of each figure."""
    results = experiment.results
    done = experiment.runs.filter(status=RunStatus.DONE).first()
    residents = done.measures.get("residents", 2) if done else 2
    start = experiment.definition["start"]
    offset = 0.0
    if start.get("simulation") is not None and done and done.simulation is not None:
        offset = start["step"] * done.simulation.sec_per_step / 3600
    facts = sorted({f for v in results.get("variants", []) for f in v["curves"]})
    for k, fact in enumerate(facts, 1):
        png = figure_diffusion(results=results, fact=fact, residents=residents, offset=offset)
        yield f"diffusion-{k}.png", f"Diffusion of “{fact}” (mean, 95% band over seeds)", png
    yield (
        "measures.png",
        "Each measure per variant: mean and 95% interval",
        figure_measures(results=results),
    )


def _rows(experiment: Experiment) -> tuple[list[list[str]], list[list[str]]]:
    results = experiment.results
    names = _names(results)
    means = [[n, *(_interval(v["measures"][n]) for v in results["variants"])] for n in names]
    diffs = []
    for d in results.get("differences", []):
        for n in names:
            m = d["measures"][n]
            g = "-" if m["hedges_g"] is None else f"{m['hedges_g']:.2f}"
            diffs.append([d["variant"], n, _interval(m), "yes" if m["excludes_zero"] else "no", g])
    return means, diffs


def _names(results: dict[str, Any]) -> list[str]:
    """The measures in reading order (a JSON column keeps its keys in its own order)."""
    found = results["variants"][0]["measures"] if results.get("variants") else {}
    return sorted(found, key=measure_order)


def _table(head: list[str], rows: list[list[str]]) -> str:
    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def report_html(*, experiment: Experiment) -> str:
    variants = [v["name"] for v in experiment.definition["variants"]]
    means, diffs = _rows(experiment)
    runs = [
        [r["variant"], str(r["seed"]), r["status"], str(r["simulation"] or "-"), r["reason"]]
        for r in experiment_runs(experiment=experiment)
    ]
    images = "".join(
        f'<figure><img alt="{escape(caption)}" src="data:image/png;base64,'
        f'{base64.b64encode(png).decode()}"><figcaption>{escape(caption)}</figcaption></figure>'
        for _name, caption, png in figures(experiment)
    )
    note = f"<p class=note>{escape(OFFLINE_NOTE)}</p>" if _offline(experiment) else ""
    return (
        "<!doctype html><html><head><meta charset=utf-8>"
        f"<title>{escape(experiment.name)}: experiment report</title>"
        "<style>body{font:15px system-ui,sans-serif;max-width:1100px;margin:2em auto;"
        "color:#1a1a1a}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid"
        " #bbb;padding:4px 8px;text-align:left}.note{background:#fff4d6;padding:8px}"
        "img{max-width:100%}</style></head><body>"
        f"<h1>{escape(experiment.name)}</h1>{note}"
        f"<p>{escape(experiment.definition.get('description', ''))}</p>"
        f"<p>Variants: {escape(', '.join(variants))}; seeds: "
        f"{escape(', '.join(map(str, experiment.definition['seeds'])))}. Intervals: 95%, "
        "bootstrap over seeds; differences paired by seed, against the first variant.</p>"
        "<h2>Measures</h2>"
        + _table(["measure", *variants], means)
        + "<h2>Differences</h2>"
        + _table(["variant", "measure", "difference [95%]", "excludes 0", "Hedges' g"], diffs)
        + f"<h2>Figures</h2>{images}<h2>Runs</h2>"
        + _table(["variant", "seed", "status", "simulation", "reason"], runs)
        + "</body></html>"
    )


def results_csv(*, experiment: Experiment) -> str:
    """A row per variant and measure (mean, interval) and per difference."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "kind",
            "variant",
            "against",
            "measure",
            "n",
            "mean",
            "low",
            "high",
            "excludes_zero",
            "hedges_g",
        ]
    )
    results = experiment.results
    for v in results.get("variants", []):
        for name in _names(results):
            m = v["measures"][name]
            writer.writerow(
                ["mean", v["name"], "", name, m["n"], m["mean"], m["low"], m["high"], "", ""]
            )
    for d in results.get("differences", []):
        for name in _names(results):
            m = d["measures"][name]
            writer.writerow(
                [
                    "difference",
                    d["variant"],
                    d["against"],
                    name,
                    m["n"],
                    m["mean"],
                    m["low"],
                    m["high"],
                    m["excludes_zero"],
                    m["hedges_g"],
                ]
            )
    return out.getvalue()


def report_files(*, experiment: Experiment, directory: Path) -> list[Path]:
    """The report as files in `directory`: README.md, the figures, results.json and .csv."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    lines = [f"# {experiment.name}", ""]
    if _offline(experiment):
        lines += [f"> {OFFLINE_NOTE}", ""]
    lines += [experiment.definition.get("description", ""), ""]
    variants = [v["name"] for v in experiment.definition["variants"]]
    means, diffs = _rows(experiment)
    lines += [
        "## Measures (mean [95% interval] over seeds)",
        "",
        _md(["measure", *variants], means),
    ]
    lines += ["", "## Differences from the first variant (paired by seed)", ""]
    lines += [_md(["variant", "measure", "difference [95%]", "excludes 0", "Hedges' g"], diffs)]
    lines += ["", "## Figures", ""]
    for name, caption, png in figures(experiment):
        (directory / name).write_bytes(png)
        written.append(directory / name)
        lines += [f"![{caption}]({name})", "", f"*{caption}*", ""]
    (directory / "results.json").write_text(json.dumps(experiment.results, indent=1))
    (directory / "results.csv").write_text(results_csv(experiment=experiment))
    (directory / "README.md").write_text("\n".join(lines) + "\n")
    return [
        *written,
        directory / "results.json",
        directory / "results.csv",
        directory / "README.md",
    ]


def _md(head: list[str], rows: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "/") for c in cells) + " |"

    return "\n".join([line(head), line(["---"] * len(head)), *(line(r) for r in rows)])
