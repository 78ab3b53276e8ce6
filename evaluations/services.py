"""Writes of evaluations: creating one, recording its units once each, finishing it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone

from llm.models import ModelProfile, ModelUsage
from world.eventlog import simulation_fork
from world.models import Agent, Simulation, SimulationStatus

from .conditions import Condition
from .models import Evaluation, EvaluationKind, EvaluationStatus, InterviewAnswer
from .named import MeasureError, measures_resolve
from .questions import QUESTIONS, interview_questions
from .signals import evaluation_ended

HUMAN = "human"
HUMAN_ANSWER_MAX = 2000


class EvaluationError(ValueError):
    """A request for an evaluation that cannot be made; the message says why, `field` which
    field of the request."""

    def __init__(self, message: str, field: str = "evaluation") -> None:
        super().__init__(message)
        self.field = field


def evaluation_create(
    *,
    simulation: Simulation,
    kinds: Sequence[str],
    step: int | None = None,
    conditions: Sequence[str] = tuple(Condition.values),
    facts: Sequence[Any] | None = None,
    events: Sequence[Any] | None = None,
    compared: Sequence[Simulation] = (),
    human_answers: Mapping[str, Mapping[str, str]] | None = None,
    judge_profile: ModelProfile | None = None,
) -> Evaluation:
    """A pending evaluation of `simulation` at `step` (default: its current step), of the
    named `facts` and `events` (None: its base's; evaluations.named), recorded resolved.

    `human_answers` ({resident name: {question number "1".."25": answer}}) are recorded
    with it as the `human` condition, which joins the conditions. Raises EvaluationError,
    writing nothing, for an unknown kind or condition, a step the simulation has not
    reached, or human answers of another shape.
    """
    unknown = [k for k in kinds if k not in EvaluationKind.values]
    if unknown or not kinds:
        raise EvaluationError(
            f"unknown kinds {unknown}; known: {EvaluationKind.values}", field="kinds"
        )
    known_conditions = [*Condition.values, HUMAN]
    unknown = [c for c in conditions if c not in known_conditions]
    if unknown:
        raise EvaluationError(
            f"unknown conditions {unknown}; known: {known_conditions}", field="conditions"
        )
    at = simulation.step if step is None else step
    if not 0 <= at <= simulation.step:
        raise EvaluationError(
            f"step {at} is beyond the simulation's step {simulation.step}", field="step"
        )
    try:
        named = measures_resolve(simulation, facts, events)
    except MeasureError as exc:
        raise EvaluationError(exc.message, field=exc.field) from exc
    humans = (
        _human_answers(simulation, human_answers, named.questions)
        if human_answers is not None
        else []
    )
    if humans and HUMAN not in conditions:
        conditions = [*conditions, HUMAN]
    if HUMAN in conditions and not humans:
        raise EvaluationError("the condition human needs human_answers", field="conditions")
    for _attempt in range(3):  # two requests may take the same number; the constraint says
        try:
            with transaction.atomic():
                last = simulation.evaluations.aggregate(n=Max("number"))["n"] or 0
                evaluation = Evaluation.objects.create(
                    simulation=simulation,
                    number=last + 1,
                    step=at,
                    kinds=list(kinds),
                    conditions=list(conditions),
                    facts=[f.as_json() for f in named.facts],
                    events=[e.as_json() for e in named.events],
                    questions=named.questions,
                    judge_profile=judge_profile,
                )
                evaluation.compared.set(compared)
                InterviewAnswer.objects.bulk_create(
                    InterviewAnswer(evaluation=evaluation, condition=HUMAN, **row) for row in humans
                )
                return evaluation
        except IntegrityError:
            continue
    raise EvaluationError("could not number the evaluation; try again")


def _human_answers(
    simulation: Simulation, answers: Mapping[str, Mapping[str, str]], news: Sequence[str]
) -> list[dict[str, object]]:
    """The rows of uploaded human answers; EvaluationError naming the first bad entry."""
    shape = 'human_answers must be {"<resident name>": {"<question 1-25>": "<answer>"}}'
    if not isinstance(answers, Mapping) or not answers:
        raise EvaluationError(f"{shape}, with at least one resident", field="human_answers")
    agents = {a.name: a for a in simulation.agents.all()}
    names = list(agents)
    rows: list[dict[str, object]] = []
    for name, by_number in answers.items():
        if name not in agents:
            raise EvaluationError(
                f"human_answers: no resident named {name!r} in the simulation",
                field="human_answers",
            )
        if not isinstance(by_number, Mapping) or not by_number:
            raise EvaluationError(f"human_answers[{name!r}]: {shape}", field="human_answers")
        asked = interview_questions(agent=agents[name], residents=names, news=news)
        questions = {q.number: q for q in asked}
        for number, answer in by_number.items():
            if not (isinstance(number, str) and number.isdigit() and 1 <= int(number) <= QUESTIONS):
                raise EvaluationError(
                    f"human_answers[{name!r}]: {number!r} is not a question number 1-{QUESTIONS}",
                    field="human_answers",
                )
            if not isinstance(answer, str) or not answer.strip() or len(answer) > HUMAN_ANSWER_MAX:
                raise EvaluationError(
                    f"human_answers[{name!r}][{number!r}]: an answer is a non-empty text of at "
                    f"most {HUMAN_ANSWER_MAX} characters",
                    field="human_answers",
                )
            question = questions[int(number)]
            rows.append(
                {
                    "agent": agents[name],
                    "category": question.category,
                    "question_number": question.number,
                    "question": question.text,
                    "answer": answer.strip(),
                    "memories": [],
                }
            )
    return rows


def evaluation_subject_fix(*, evaluation: Evaluation) -> Simulation:
    """The simulation the evaluation measures, fixed once (a re-run finds it): the evaluated
    simulation itself when it stands at the evaluation's step and is not running, else its
    fork at that step, made here. The fork carries what is left of the parent's budget, and
    human answers move to its residents of the same names. The fork and the mark are one
    transaction: a worker killed in between leaves neither."""
    if evaluation.subject_id is not None:
        return Simulation.objects.get(pk=evaluation.subject_id)
    simulation = Simulation.objects.get(pk=evaluation.simulation_id)
    with transaction.atomic():
        if simulation.step == evaluation.step and simulation.status != SimulationStatus.RUNNING:
            subject = simulation
        else:
            subject = simulation_fork(
                simulation=simulation,
                step=evaluation.step,
                name=f"{simulation.name}: evaluation {evaluation.number} at step {evaluation.step}",
            )
            _budget_left_to(subject, simulation)
            fork_agents = {a.name: a for a in subject.agents.all()}
            humans = list(
                InterviewAnswer.objects.filter(evaluation=evaluation).select_related("agent")
            )
            for row in humans:
                row.agent = fork_agents[row.agent.name]
            InterviewAnswer.objects.bulk_update(humans, ["agent"])
        fixed = Evaluation.objects.filter(pk=evaluation.pk, subject__isnull=True).update(
            subject=subject
        )
        if not fixed:  # another worker fixed it first: keep its subject, drop this fork
            transaction.set_rollback(True)
    evaluation.refresh_from_db()
    assert evaluation.subject is not None
    return evaluation.subject


def _budget_left_to(fork: Simulation, parent: Simulation) -> None:
    usage = ModelUsage.objects.filter(simulation=parent).first()
    calls, tokens = (usage.calls, usage.tokens) if usage else (0, 0)
    Simulation.objects.filter(pk=fork.pk).update(
        budget_calls=None if parent.budget_calls is None else max(0, parent.budget_calls - calls),
        budget_tokens=None
        if parent.budget_tokens is None
        else max(0, parent.budget_tokens - tokens),
    )


def answer_record(
    *,
    evaluation: Evaluation,
    agent: Agent,
    category: str,
    question_number: int,
    question: str,
    condition: str,
    answer: str,
    memories: Sequence[int],
) -> bool:
    """Record one unit once: False when it was already there (a re-run after a killed
    worker), and the progress counts it only the first time."""
    with transaction.atomic():
        _row, created = InterviewAnswer.objects.get_or_create(
            evaluation=evaluation,
            agent=agent,
            question_number=question_number,
            condition=condition,
            defaults={
                "category": category,
                "question": question,
                "answer": answer,
                "memories": list(memories),
            },
        )
        if created:
            Evaluation.objects.filter(pk=evaluation.pk, done__lt=F("total")).update(
                done=F("done") + 1
            )
    return created


def judgement_record(
    *,
    evaluation: Evaluation,
    agent: Agent,
    question_number: int,
    ranking: Sequence[str],
    fallback: bool = False,
) -> bool:
    """Record the judge's ranking (conditions best first) of one question's answers once,
    and whether it is the fail-safe answer: False when they were already judged, and the
    progress counts it only the first time."""
    with transaction.atomic():
        rows = {
            row.condition: row
            for row in InterviewAnswer.objects.select_for_update().filter(
                evaluation=evaluation, agent=agent, question_number=question_number
            )
        }
        if not rows or any(row.judged_rank is not None for row in rows.values()):
            return False
        for rank, condition in enumerate(ranking, 1):
            InterviewAnswer.objects.filter(pk=rows[condition].pk).update(
                judged_rank=rank, judge_fallback=fallback
            )
        Evaluation.objects.filter(pk=evaluation.pk, done__lt=F("total")).update(done=F("done") + 1)
    return True


def evaluation_start(*, evaluation: Evaluation, total: int) -> bool:
    """Pending -> running with `total` units; False when another worker already started it."""
    started = Evaluation.objects.filter(pk=evaluation.pk, status=EvaluationStatus.PENDING).update(
        status=EvaluationStatus.RUNNING, total=total
    )
    return started == 1


def evaluation_progress(*, evaluation: Evaluation, done: int) -> None:
    """Raise the count of units done to `done` (never lower it: a re-run repeats units)."""
    Evaluation.objects.filter(
        pk=evaluation.pk, status=EvaluationStatus.RUNNING, done__lt=done, total__gte=done
    ).update(done=done)


def evaluation_fail(*, evaluation: Evaluation, reason: str) -> bool:
    """Running -> failed, saying why (a spent budget, a model that keeps failing); the
    answers recorded so far stay."""
    failed = Evaluation.objects.filter(pk=evaluation.pk, status=EvaluationStatus.RUNNING).update(
        status=EvaluationStatus.FAILED, result={"error": reason}, finished_at=timezone.now()
    )
    if failed:
        _ended(evaluation, "failed")
    return failed == 1


def evaluation_finish(*, evaluation: Evaluation, result: dict[str, object]) -> bool:
    """Running -> done with its result, once; a done evaluation never changes again."""
    finished = Evaluation.objects.filter(pk=evaluation.pk, status=EvaluationStatus.RUNNING).update(
        status=EvaluationStatus.DONE, result=result, finished_at=timezone.now()
    )
    if finished:
        _ended(evaluation, "done")
    return finished == 1


def _ended(evaluation: Evaluation, outcome: str) -> None:
    ended = Evaluation.objects.select_related("simulation").get(pk=evaluation.pk)
    evaluation_ended.send(sender=Evaluation, evaluation=ended, outcome=outcome)
