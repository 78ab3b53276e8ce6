"""Running an evaluation: interviews under the conditions, the judge, the relationship
interviews and the emergence measures, each unit once, into an immutable result.

Units are rows (an answer, a judged question): a re-run after a killed worker skips the
rows already there (no model call is repeated) and counts none twice. The emergence
measures are recomputed (they are cheap reads) and counted when the result is written.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict
from statistics import fmean
from typing import Any

from llm.backends import backend_get
from llm.errors import LLMError
from memories.embeddings import EmbeddingError
from memories.models import Memory
from world.models import Agent, Simulation

from .conditions import Condition
from .emergence import PAPER, emergence_measure
from .hallucination import claims_to_know
from .interviews import interview_answer, start_answer
from .judge import judge_rank
from .models import Evaluation, EvaluationKind, EvaluationStatus, InterviewAnswer
from .questions import (
    QUESTIONS,
    RELATIONSHIP_BASE,
    RELATIONSHIP_NOW,
    RELATIONSHIP_START,
    Question,
    interview_questions,
    relationship_question,
)
from .ranking import rank_scores, ranking_statistics, trueskill_rate
from .services import (
    HUMAN,
    answer_record,
    evaluation_fail,
    evaluation_finish,
    evaluation_progress,
    evaluation_start,
    judgement_record,
)

# The parts of emergence_measure each kind reports.
PARTS = {
    EvaluationKind.DIFFUSION: ("party_news", "candidacy_news"),
    EvaluationKind.RELATIONSHIPS: ("network_density",),
    EvaluationKind.COORDINATION: ("party",),
}
PAIRS_KINDS = (EvaluationKind.RELATIONSHIPS, EvaluationKind.HALLUCINATION)
Progress = Callable[[int, int], None]
Key = tuple[int, int, str]  # agent id, question number, condition


def _emergence(simulation: Simulation, kinds: list[str]) -> dict[str, Any]:
    measured = emergence_measure(simulation=simulation)
    return {part: measured[part] for k in kinds for part in PARTS.get(EvaluationKind(k), ())}


class _Run:
    """One pass over an evaluation's units, in order; what is already recorded is skipped."""

    def __init__(self, evaluation: Evaluation, progress: Progress | None) -> None:
        self.evaluation = evaluation
        self.simulation = evaluation.simulation
        self.agents = list(self.simulation.agents.order_by("name"))
        self.names = [a.name for a in self.agents]
        self.progress = progress
        self.conditions = [Condition(c) for c in evaluation.conditions if c != HUMAN]
        kinds = set(evaluation.kinds)
        self.questions = {
            a.pk: interview_questions(agent=a, residents=self.names) for a in self.agents
        }
        self.interviews = EvaluationKind.INTERVIEWS in kinds
        self.pairs = bool(kinds & set(PAIRS_KINDS))
        self.done = 0
        self.total = 0

    def _tick(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)

    def _existing(self) -> dict[Key, InterviewAnswer]:
        rows = InterviewAnswer.objects.filter(evaluation=self.evaluation)
        return {(r.agent_id, r.question_number, r.condition): r for r in rows}

    def _judged_questions(self) -> list[tuple[Agent, Question]]:
        """The questions with two answers or more to rank (a human answer may be missing)."""
        if not self.interviews:
            return []
        humans = {(a, q) for a, q, c in self._existing() if c == HUMAN}
        return [
            (agent, q)
            for agent in self.agents
            for q in self.questions[agent.pk]
            if len(self.conditions) + ((agent.pk, q.number) in humans) >= 2
        ]

    def count(self, simulations: int) -> int:
        interviews = len(self.agents) * QUESTIONS * len(self.conditions) if self.interviews else 0
        pairs = 2 * len(self.agents) * (len(self.agents) - 1) if self.pairs else 0
        self.total = interviews + len(self._judged_questions()) + pairs + simulations
        return self.total

    def interview(self) -> None:
        if not self.interviews:
            return
        existing = self._existing()
        for agent in self.agents:
            for q in self.questions[agent.pk]:
                for condition in self.conditions:
                    if (agent.pk, q.number, condition) not in existing:
                        answer = interview_answer(
                            simulation=self.simulation,
                            agent=agent,
                            condition=condition,
                            question=q.text,
                        )
                        answer_record(
                            evaluation=self.evaluation,
                            agent=agent,
                            category=q.category,
                            question_number=q.number,
                            question=q.text,
                            condition=condition,
                            answer=answer.text,
                            memories=answer.memories,
                        )
                    self._tick()

    def judge(self) -> None:
        by_question: dict[tuple[int, int], dict[str, InterviewAnswer]] = defaultdict(dict)
        for (agent_id, number, condition), row in self._existing().items():
            by_question[(agent_id, number)][condition] = row
        for agent, q in self._judged_questions():
            rows = by_question[(agent.pk, q.number)]
            if all(row.judged_rank is None for row in rows.values()):
                numbers = sorted({n for row in rows.values() for n in row.memories})
                memories = Memory.objects.filter(agent=agent, number__in=numbers).order_by("number")
                ranking = judge_rank(
                    simulation=self.simulation,
                    agent=agent,
                    question=q.text,
                    answers={c: row.answer for c, row in rows.items()},
                    memories=[m.description for m in memories],
                    shuffle=f"{self.evaluation.pk}:{agent.name}:{q.number}",
                )
                judgement_record(
                    evaluation=self.evaluation,
                    agent=agent,
                    question_number=q.number,
                    ranking=ranking,
                )
            self._tick()

    def ask_pairs(self) -> None:
        if not self.pairs:
            return
        existing = self._existing()
        for moment in (RELATIONSHIP_START, RELATIONSHIP_NOW):
            for agent in self.agents:
                for i, other in enumerate(self.names):
                    if other == agent.name:
                        continue
                    number = RELATIONSHIP_BASE[moment] + i
                    if (agent.pk, number, Condition.FULL) not in existing:
                        question = relationship_question(other)
                        if moment == RELATIONSHIP_START:
                            answer = start_answer(
                                simulation=self.simulation,
                                agent=agent,
                                question=question,
                                about=other,
                            )
                        else:
                            answer = interview_answer(
                                simulation=self.simulation,
                                agent=agent,
                                condition=Condition.FULL,
                                question=question,
                            )
                        answer_record(
                            evaluation=self.evaluation,
                            agent=agent,
                            category=moment,
                            question_number=number,
                            question=question,
                            condition=Condition.FULL,
                            answer=answer.text,
                            memories=answer.memories,
                        )
                    self._tick()


def _interviews_result(run: _Run) -> dict[str, Any]:
    rows = InterviewAnswer.objects.filter(evaluation=run.evaluation, question_number__lte=QUESTIONS)
    ranked: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)
    by_category: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    answers = 0
    for row in rows:
        answers += 1
        if row.judged_rank is not None:
            ranked[(row.agent_id, row.question_number)].append((row.judged_rank, row.condition))
            by_category[row.category][row.condition].append(row.judged_rank)
    rankings = [[c for _rank, c in sorted(r)] for _key, r in sorted(ranked.items())]
    statistics = ranking_statistics(scores=rank_scores(rankings=rankings))
    backend = backend_get().name
    return {
        "answers": answers,
        "judged_questions": len(rankings),
        "judge_backend": backend,
        "judge_note": "the offline judge is a rule (more of the resident's memory words "
        "ranks higher), not a judgement of believability"
        if backend == "offline"
        else "rankings by the configured model",
        "trueskill": [asdict(r) for r in trueskill_rate(rankings=rankings)],
        "statistics": asdict(statistics) if statistics is not None else None,
        "mean_rank_by_category": {
            category: {c: round(fmean(ranks), 3) for c, ranks in sorted(by.items())}
            for category, by in sorted(by_category.items())
        },
        "paper": "TrueSkill mu: full 29.89, no reflection 26.88, no reflection/planning "
        "25.64, human 22.95, no memory 21.21; Cohen's d 8.16 (full vs no memory)",
    }


def _pairs_result(run: _Run) -> dict[str, Any]:
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
    out["paper"] = PAPER["network_density"]
    return out


def evaluation_run(*, evaluation: Evaluation, progress: Progress | None = None) -> Evaluation:
    """Compute the evaluation's kinds and finish it; a done one is returned unchanged. A
    model call that cannot be made (the budget spent, the model failing after its retries)
    fails it, saying why.

    The measures and the "now" interviews read the memory stream and the log as they are
    now (not cut at the evaluation's step).
    """
    if evaluation.status == EvaluationStatus.DONE:
        return evaluation
    simulations = [evaluation.simulation, *evaluation.compared.order_by("pk")]
    run = _Run(evaluation, progress)
    evaluation_start(evaluation=evaluation, total=run.count(len(simulations)))
    try:
        run.interview()
        run.judge()
        run.ask_pairs()
    except (LLMError, EmbeddingError) as exc:
        evaluation_fail(evaluation=evaluation, reason=f"{type(exc).__name__}: {exc}")
        evaluation.refresh_from_db()
        return evaluation
    result: dict[str, Any] = {
        "backend_note": "emergence measures read the memory stream and the event log; "
        "with the offline backend they show mechanics, not what a model would do",
        "simulations": {},
    }
    for simulation in simulations:
        result["simulations"][str(simulation.pk)] = _emergence(simulation, evaluation.kinds)
        run._tick()
    if run.interviews:
        result["interviews"] = _interviews_result(run)
    if run.pairs:
        pairs = _pairs_result(run)
        if EvaluationKind.HALLUCINATION in evaluation.kinds:
            result["hallucination"] = pairs["hallucination"]
        if EvaluationKind.RELATIONSHIPS in evaluation.kinds:
            result["relationships"] = {k: v for k, v in pairs.items() if k != "hallucination"}
    evaluation_progress(evaluation=evaluation, done=run.total)
    evaluation_finish(evaluation=evaluation, result=result)
    evaluation.refresh_from_db()
    return evaluation
