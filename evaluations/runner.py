"""Running an evaluation: interviews under the conditions, the judge, the relationship
and fact interviews and the emergence measures, each unit once, into an immutable result.

What is measured is the evaluation's subject (`evaluation_subject_fix`): the simulation
at the evaluation's step, a fork of it when it has moved on, so a past step is measured
as it was (its memory stream, last-access times and log cut there).

Units are rows (an answer, a judged question): a re-run after a killed worker skips the
rows already there (no model call is repeated) and counts none twice. The emergence
measures are recomputed (they are cheap reads) and counted when the result is written.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict
from statistics import fmean
from typing import Any

from llm.errors import LLMError
from llm.port import calls_in_background
from llm.profiles import profile_backend, profile_route
from memories.embeddings import EmbeddingError
from memories.models import Memory
from world.models import Simulation

from .emergence import PAPER_DENSITY, diffusion, emergence_measure, remembered
from .hallucination import agreement, claims_to_know
from .judge import JUDGE
from .models import Evaluation, EvaluationKind, EvaluationStatus, InterviewAnswer
from .passes import EvaluationPass, Progress
from .questions import (
    FACT,
    FACT_BASE,
    QUESTIONS,
    RELATIONSHIP_BASE,
    RELATIONSHIP_NOW,
    RELATIONSHIP_START,
)
from .ranking import rank_scores, ranking_statistics, trueskill_rate
from .services import (
    evaluation_fail,
    evaluation_finish,
    evaluation_progress,
    evaluation_start,
    evaluation_subject_fix,
)

# The parts of emergence_measure each kind reports.
PARTS = {
    EvaluationKind.DIFFUSION: ("news",),
    EvaluationKind.RELATIONSHIPS: ("network_density",),
    EvaluationKind.COORDINATION: ("events",),
}


def _emergence(simulation: Simulation, kinds: list[str], run: EvaluationPass) -> dict[str, Any]:
    measured = emergence_measure(simulation=simulation, facts=run.named_facts, events=run.events)
    return {part: measured[part] for k in kinds for part in PARTS.get(EvaluationKind(k), ())}


def _facts_result(run: EvaluationPass) -> list[dict[str, Any]]:
    """Each fact's diffusion by interview ("Did you hear that ...?"), checked against the
    memory stream: a yes is knowing when a memory of the resident states the fact, a
    hallucination when none does; a no from a resident whose memory states it is
    `remembered_but_denied`; `agreement` sums them up per fact. Beside it, the memory
    stream's own account (holders, when and from whom each first heard it, the share over
    time)."""
    memories = remembered(run.simulation)
    rows = InterviewAnswer.objects.filter(evaluation=run.evaluation, category=FACT)
    answers = {(row.agent_id, row.question_number): row.answer for row in rows}
    out: list[dict[str, Any]] = []
    for i, fact in enumerate(run.facts):
        by_memory = diffusion(run.simulation, memories, fact.origin, fact.about)
        backed = set(by_memory["residents"])  # the holders besides the source
        if by_memory["source_holds_it"]:
            backed.add(by_memory["source"])
        knows, hallucinated, denied = [], [], []
        for agent in run.agents:
            answer = answers.get((agent.pk, FACT_BASE + i), "")
            claimed, held = claims_to_know(answer), agent.name in backed
            if claimed and held:
                knows.append(agent.name)
            elif claimed:
                hallucinated.append({"resident": agent.name, "answer": answer})
            elif held:
                denied.append(agent.name)
        others = len(run.agents) - (1 if by_memory["source"] in run.names else 0)
        knowing_others = [n for n in knows if n != by_memory["source"]]
        out.append(
            {
                "fact": fact.text,
                "question": fact.question,
                "source": by_memory["source"],
                "agreement": agreement(
                    residents=len(run.agents),
                    holders=sorted(backed & set(run.names)),
                    knows=knows,
                    denied=denied,
                    claimed=[h["resident"] for h in hallucinated],
                    source=by_memory["source"],
                ),
                "by_interview": {
                    "knows": knows,
                    "knows_among_the_others": f"{len(knowing_others)} of {others}",
                    "percent_of_the_others": round(100 * len(knowing_others) / others, 1)
                    if others
                    else 0.0,
                    "hallucinated": hallucinated,
                    "remembered_but_denied": denied,
                },
                "by_memory": by_memory,
            }
        )
    return out


def _interviews_result(run: EvaluationPass) -> dict[str, Any]:
    rows = InterviewAnswer.objects.filter(evaluation=run.evaluation, question_number__lte=QUESTIONS)
    ranked: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)
    by_category: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    fell_back: set[tuple[int, int]] = set()
    answers = 0
    for row in rows:
        answers += 1
        if row.judged_rank is not None:
            ranked[(row.agent_id, row.question_number)].append((row.judged_rank, row.condition))
            by_category[row.category][row.condition].append(row.judged_rank)
            if row.judge_fallback:
                fell_back.add((row.agent_id, row.question_number))
    rankings = [[c for _rank, c in sorted(r)] for _key, r in sorted(ranked.items())]
    by_model = [
        [c for _rank, c in sorted(r)] for k, r in sorted(ranked.items()) if k not in fell_back
    ]
    statistics = ranking_statistics(scores=rank_scores(rankings=rankings))
    # The judge's model: the evaluation's own profile, else the simulation's route for it.
    judge = profile_backend(
        run.evaluation.judge_profile
        or profile_route(simulation_id=run.simulation.pk, task=JUDGE.name)
    )
    backend = judge.name
    out: dict[str, Any] = {
        "answers": answers,
        "judged_questions": len(rankings),
        "judge_backend": backend,
        "judge_model": judge.model,
        "judge_fallbacks": len(fell_back),
        "judge_note": "the offline judge is a rule (more of the resident's memory words "
        "ranks higher), not a judgement of believability"
        if backend == "offline"
        else f"rankings by the configured model; {len(fell_back)} of {len(rankings)} "
        "questions took the judge's fail-safe answer (the offline rule) after the model's "
        "replies stayed invalid",
    }
    if fell_back and by_model and backend != "offline":
        out["trueskill_model_judged_only"] = [asdict(r) for r in trueskill_rate(rankings=by_model)]
    return out | {
        "trueskill": [asdict(r) for r in trueskill_rate(rankings=rankings)],
        "statistics": asdict(statistics) if statistics is not None else None,
        "mean_rank_by_category": {
            category: {c: round(fmean(ranks), 3) for c, ranks in sorted(by.items())}
            for category, by in sorted(by_category.items())
        },
        "paper": "TrueSkill mu: full 29.89, no reflection 26.88, no reflection/planning "
        "25.64, human 22.95, no memory 21.21; Cohen's d 8.16 (full vs no memory)",
    }


def _pairs_result(run: EvaluationPass) -> dict[str, Any]:
    """Density from "Do you know <name>?" at the start and now: a pair is connected when
    either says yes and a memory of its (of the start's sim time, at the start) names the
    other; a yes with no such memory is a hallucination."""
    rows = InterviewAnswer.objects.filter(
        evaluation=run.evaluation, category__in=list(RELATIONSHIP_BASE)
    ).select_related("agent")
    possible = len(run.agents) * (len(run.agents) - 1) // 2
    out: dict[str, Any] = {"residents": run.names}
    hallucinated: list[dict[str, str]] = []
    for moment in RELATIONSHIP_BASE:
        edges: set[tuple[str, str]] = set()
        claims = 0
        for row in rows:
            if row.category != moment or not claims_to_know(row.answer):
                continue
            claims += 1
            other = run.names[row.question_number - RELATIONSHIP_BASE[moment]]
            memories = Memory.objects.filter(agent=row.agent, description__contains=other)
            if moment == RELATIONSHIP_START:
                memories = memories.filter(created__lte=run.simulation.start_time)
            if memories.exists():
                edges.add(tuple(sorted((row.agent.name, other))))  # type: ignore[arg-type]
            elif moment == RELATIONSHIP_NOW:
                hallucinated.append(
                    {"resident": row.agent.name, "about": other, "answer": row.answer}
                )
        out[moment.removeprefix("relationship_")] = {
            "claims": claims,
            "pairs": len(edges),
            "possible_pairs": possible,
            "density": round(len(edges) / possible, 3) if possible else 0.0,
            "edges": sorted(edges),
        }
    now_claims = out["now"]["claims"]
    out["hallucination"] = {
        "claims": now_claims,
        "hallucinated": len(hallucinated),
        "rate": round(len(hallucinated) / now_claims, 3) if now_claims else 0.0,
        "examples": hallucinated[:20],
        "paper": "6 of 453 answers (1.3%) hallucinated",
    }
    out["paper"] = PAPER_DENSITY
    return out


def evaluation_run(*, evaluation: Evaluation, progress: Progress | None = None) -> Evaluation:
    """Compute the evaluation's kinds and finish it; a done one is returned unchanged. A
    model call that cannot be made (the budget spent, the model failing after its retries)
    fails it, saying why.

    The measures and the interviews read the subject: the simulation as it was at the
    evaluation's step (a fork when it has moved on); compared simulations as they are.
    """
    if evaluation.status == EvaluationStatus.DONE:
        return evaluation
    subject = evaluation_subject_fix(evaluation=evaluation)
    simulations = [subject, *evaluation.compared.order_by("pk")]
    run = EvaluationPass(evaluation, subject, progress)
    evaluation_start(evaluation=evaluation, total=run.count(len(simulations)))
    try:
        with calls_in_background():  # nothing in the town waits on an evaluation
            run.interview()
            run.judge()
            run.ask_pairs()
            run.ask_facts()
    except (LLMError, EmbeddingError) as exc:
        evaluation_fail(evaluation=evaluation, reason=f"{type(exc).__name__}: {exc}")
        evaluation.refresh_from_db()
        return evaluation
    result: dict[str, Any] = {
        "backend_note": "emergence measures read the memory stream and the event log; "
        "with the offline backend they show mechanics, not what a model would do",
        "subject": subject.pk,
        "subject_note": "the simulation itself at the step"
        if subject.pk == evaluation.simulation_id
        else f"its fork at step {evaluation.step} (simulation {subject.pk})",
        "sim_time": subject.sim_time.isoformat(),
        "simulations": {},
    }
    for simulation in simulations:
        result["simulations"][str(simulation.pk)] = _emergence(simulation, evaluation.kinds, run)
        run._tick()
    if run.interviews:
        result["interviews"] = _interviews_result(run)
    facts = _facts_result(run) if run.facts else []
    if EvaluationKind.DIFFUSION in evaluation.kinds:
        result["diffusion"] = {"facts": facts}
    if run.pairs:
        pairs = _pairs_result(run)
        if EvaluationKind.HALLUCINATION in evaluation.kinds:
            hallucinated = [
                {"resident": h["resident"], "about": f["fact"], "answer": h["answer"]}
                for f in facts
                for h in f["by_interview"]["hallucinated"]
            ]
            claims = sum(len(f["by_interview"]["knows"]) for f in facts) + len(hallucinated)
            result["hallucination"] = {
                **pairs["hallucination"],
                "fact_claims": claims,
                "fact_hallucinated": len(hallucinated),
                "fact_examples": hallucinated[:20],
            }
        if EvaluationKind.RELATIONSHIPS in evaluation.kinds:
            result["relationships"] = {k: v for k, v in pairs.items() if k != "hallucination"}
    evaluation_progress(evaluation=evaluation, done=run.total)
    evaluation_finish(evaluation=evaluation, result=result)
    evaluation.refresh_from_db()
    return evaluation
