"""One pass over an evaluation's units (interviews under the conditions, the judge's
rankings, the relationship and fact interviews), in order; what is recorded is skipped, so
a pass after a killed worker asks no model call twice (evaluations/runner.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import partial

from llm.port import fallbacks_collected
from memories.models import Memory
from world.models import Agent, Simulation

from .conditions import Condition
from .interviews import Answer, interview_answer, start_answer
from .judge import judge_rank
from .models import Evaluation, EvaluationKind, InterviewAnswer
from .named import Fact, measures_parse
from .questions import (
    FACT,
    FACT_BASE,
    QUESTIONS,
    RELATIONSHIP_BASE,
    RELATIONSHIP_NOW,
    RELATIONSHIP_START,
    Question,
    interview_questions,
    relationship_question,
)
from .services import (
    HUMAN,
    answer_record,
    judgement_record,
)

PAIRS_KINDS = (EvaluationKind.RELATIONSHIPS, EvaluationKind.HALLUCINATION)
FACT_KINDS = (EvaluationKind.DIFFUSION, EvaluationKind.HALLUCINATION)
Progress = Callable[[int, int], None]
Key = tuple[int, int, str]  # agent id, question number, condition


class EvaluationPass:
    """One pass over an evaluation's units, in order; what is already recorded is skipped."""

    def __init__(self, evaluation: Evaluation, subject: Simulation, progress: Progress | None):
        self.evaluation = evaluation
        self.simulation = subject
        self.agents = list(self.simulation.agents.order_by("name"))
        self.names = [a.name for a in self.agents]
        self.progress = progress
        self.conditions = [Condition(c) for c in evaluation.conditions if c != HUMAN]
        kinds = set(evaluation.kinds)
        self.questions = {
            a.pk: interview_questions(agent=a, residents=self.names, news=evaluation.questions)
            for a in self.agents
        }
        self.interviews = EvaluationKind.INTERVIEWS in kinds
        self.pairs = bool(kinds & set(PAIRS_KINDS))
        # The named facts (diffusion by memory) and events (attendance); the facts asked
        # about in interviews when a kind needs them.
        self.named_facts, self.events = measures_parse(evaluation.facts, evaluation.events)
        self.facts: list[Fact] = self.named_facts if kinds & set(FACT_KINDS) else []
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
        facts = len(self.agents) * len(self.facts)
        self.total = interviews + len(self._judged_questions()) + pairs + facts + simulations
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
                with fallbacks_collected() as fell_back:
                    ranking = judge_rank(
                        simulation=self.simulation,
                        agent=agent,
                        question=q.text,
                        answers={c: row.answer for c, row in rows.items()},
                        memories=[m.description for m in memories],
                        shuffle=f"{self.evaluation.pk}:{agent.name}:{q.number}",
                        profile=self.evaluation.judge_profile,
                    )
                judgement_record(
                    evaluation=self.evaluation,
                    agent=agent,
                    question_number=q.number,
                    ranking=ranking,
                    fallback=bool(fell_back),
                )
            self._tick()

    def _ask_once(
        self,
        existing: dict[Key, InterviewAnswer],
        agent: Agent,
        number: int,
        category: str,
        question: str,
        answer: Callable[[], Answer],
    ) -> None:
        """One full-retrieval question of the relationship or fact interviews, asked unless
        a re-run finds it answered."""
        if (agent.pk, number, Condition.FULL) not in existing:
            made = answer()
            answer_record(
                evaluation=self.evaluation,
                agent=agent,
                category=category,
                question_number=number,
                question=question,
                condition=Condition.FULL,
                answer=made.text,
                memories=made.memories,
            )
        self._tick()

    def _now(self, agent: Agent, question: str) -> Callable[[], Answer]:
        return lambda: interview_answer(
            simulation=self.simulation, agent=agent, condition=Condition.FULL, question=question
        )

    def ask_pairs(self) -> None:
        if not self.pairs:
            return
        existing = self._existing()
        for moment in (RELATIONSHIP_START, RELATIONSHIP_NOW):
            for agent in self.agents:
                for i, other in enumerate(self.names):
                    if other == agent.name:
                        continue
                    question = relationship_question(other)
                    answer = self._now(agent, question)
                    if moment == RELATIONSHIP_START:
                        answer = partial(
                            start_answer,
                            simulation=self.simulation,
                            agent=agent,
                            question=question,
                            about=other,
                        )
                    number = RELATIONSHIP_BASE[moment] + i
                    self._ask_once(existing, agent, number, moment, question, answer)

    def ask_facts(self) -> None:
        existing = self._existing()
        for agent in self.agents:
            for i, fact in enumerate(self.facts):
                answer = self._now(agent, fact.question)
                self._ask_once(existing, agent, FACT_BASE + i, FACT, fact.question, answer)
