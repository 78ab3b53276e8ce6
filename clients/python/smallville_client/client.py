"""The client: simulations (create, run, wait, stream, fork), talking to residents
(interview, whisper), evaluations, and the authoring calls (authoring.py). Each call is one
request of the REST API (docs/api.md)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar, cast

from .authoring import Bases, Residents, Scenarios
from .errors import WaitTimeout
from .helpers import SimulationRef, given, iso, pages, simulation_path
from .stream import EventStream
from .transport import Transport
from .types import Evaluation, Event, Interview, Json, Progress, Simulation, Whisper

T = TypeVar("T")


class Client:
    """A client of one Smallville server, authenticated by an API token (`sv_...`, made
    on the web face's token page or at /api/tokens/).

    Errors are raised as ApiError (its subclass for the status: BadRequest, NotFound,
    ...) with the API's `status`, `code`, `message` and `detail`. A 429 or 503 is retried
    after its `Retry-After`, at most `max_attempts` tries in all; longer waits than
    `max_retry_wait` are not made."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        max_attempts: int = 4,
        max_retry_wait: float = 60.0,
    ) -> None:
        self.http = Transport(
            base_url,
            token,
            timeout=timeout,
            max_attempts=max_attempts,
            max_retry_wait=max_retry_wait,
        )
        self.bases = Bases(self.http)
        self.scenarios = Scenarios(self.http)
        self.residents = Residents(self.http)

    # --- simulations ---------------------------------------------------------------------

    def create_simulation(
        self,
        base: int | str,
        *,
        name: str = "",
        seed: int | None = None,
        sec_per_step: int | None = None,
        start_time: datetime | str | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> Simulation:
        """A new simulation of a base (its id, or the name of yours or a shipped one)."""
        body = given(
            {"base": base, "name": name},
            seed=seed,
            sec_per_step=sec_per_step,
            start_time=iso(start_time) if start_time is not None else None,
            config=dict(config) if config is not None else None,
        )
        return cast(Simulation, self.http.request("POST", "/api/simulations/", body=body))

    def simulation(self, simulation: SimulationRef) -> Simulation:
        return cast(Simulation, self.http.request("GET", simulation_path(simulation)))

    def simulations(self) -> list[Simulation]:
        return list(pages(self.http, "/api/simulations/"))

    def run(
        self,
        simulation: SimulationRef,
        *,
        steps: int | None = None,
        until: datetime | str | None = None,
    ) -> Progress:
        """Start a run of `steps` steps, or until the sim time `until` (exactly one);
        workers advance it. 409 if it is running already. `wait` follows it to its end."""
        body = given({}, steps=steps, until=iso(until) if until is not None else None)
        return self._progress("run", simulation, body)

    def pause(self, simulation: SimulationRef) -> Progress:
        return self._progress("pause", simulation, None)

    def resume(self, simulation: SimulationRef) -> Progress:
        return self._progress("resume", simulation, None)

    def progress(self, simulation: SimulationRef) -> Progress:
        path = simulation_path(simulation, "progress")
        return cast(Progress, self.http.request("GET", path))

    def wait(
        self, simulation: SimulationRef, *, timeout: float = 600.0, poll: float = 1.0
    ) -> Progress:
        """Until the run is no longer running (idle at its target, paused, failed or
        stopped on its budget: see `status` and `reason`); WaitTimeout after `timeout` s."""
        return _until(
            lambda: self.progress(simulation),
            lambda progress: progress["status"] != "running",
            timeout,
            poll,
            f"the run of {simulation_path(simulation)}",
        )

    def fork(
        self, simulation: SimulationRef, *, step: int | None = None, name: str = ""
    ) -> Simulation:
        """A new simulation whose log is this one's up to `step` (default: its step)."""
        path = simulation_path(simulation, "fork")
        return cast(
            Simulation, self.http.request("POST", path, body=given({"name": name}, step=step))
        )

    # --- the event log -------------------------------------------------------------------

    def events(
        self,
        simulation: SimulationRef,
        *,
        kind: str | None = None,
        agent: str | None = None,
        seq_after: int | None = None,
        step_min: int | None = None,
        step_max: int | None = None,
        page_size: int = 1000,
    ) -> Iterator[Event]:
        """The log as it stands, in seq order, page after page."""
        params = {
            "kind": kind,
            "agent": agent,
            "seq_after": seq_after,
            "step_min": step_min,
            "step_max": step_max,
            "page_size": page_size,
        }
        return pages(self.http, simulation_path(simulation, "events"), params)

    def stream(
        self,
        simulation: SimulationRef,
        *,
        after: int | None = None,
        kinds: Iterable[str] = (),
        residents: Iterable[str] = (),
        read_timeout: float = 60.0,
        max_reconnects: int = 10,
    ) -> EventStream:
        """The log live (Server-Sent Events): the events after seq `after` (default: from
        the start), then each as it is committed; only `kinds` and `residents` when
        given. Iterate it; a dropped connection is resumed after the last event received
        (`last_event_id`), nothing lost or repeated. It never ends by itself: `close()` it,
        or use it in a `with` block and break."""
        params = {"kinds": ",".join(kinds) or None, "residents": ",".join(residents) or None}
        return EventStream(
            self.http,
            simulation_path(simulation, "stream"),
            params=params,
            after=after,
            read_timeout=read_timeout,
            max_reconnects=max_reconnects,
        )

    # --- residents -----------------------------------------------------------------------

    def interview(
        self,
        simulation: SimulationRef,
        resident: str,
        question: str,
        *,
        persona: str = "an interviewer",
        session: str | None = None,
        remember: bool = False,
    ) -> Interview:
        """Ask a resident a question as `persona`; it answers as itself, from its memories.
        Pass an answer's `session` to go on with the same interview."""
        body = given(
            {"persona": persona, "question": question, "remember": remember}, session=session
        )
        return cast(
            Interview,
            self.http.request("POST", self._resident(simulation, resident, "interview"), body=body),
        )

    def whisper(self, simulation: SimulationRef, resident: str, statement: str) -> Whisper:
        """The inner voice: the statement becomes the resident's thought, and it re-plans."""
        path = self._resident(simulation, resident, "whisper")
        return cast(Whisper, self.http.request("POST", path, body={"statement": statement}))

    # --- evaluations ---------------------------------------------------------------------

    def evaluate(
        self,
        simulation: SimulationRef,
        kinds: Sequence[str],
        *,
        step: int | None = None,
        conditions: Sequence[str] | None = None,
        facts: Sequence[Any] | None = None,
        events: Sequence[Any] | None = None,
        wait: bool = True,
        timeout: float = 1800.0,
        poll: float = 1.0,
    ) -> Evaluation:
        """Start an evaluation (kinds: interviews, diffusion, relationships, coordination,
        hallucination, comparison) at `step` (default: now) and, with `wait`, return it
        once done or failed (WaitTimeout after `timeout` s)."""
        body = given(
            {"kinds": list(kinds)},
            step=step,
            conditions=list(conditions) if conditions is not None else None,
            facts=list(facts) if facts is not None else None,
            events=list(events) if events is not None else None,
        )
        path = simulation_path(simulation, "evaluations")
        made = cast(Evaluation, self.http.request("POST", path, body=body))
        if not wait:
            return made
        return self.wait_evaluation(simulation, made["number"], timeout=timeout, poll=poll)

    def evaluation(self, simulation: SimulationRef, number: int) -> Evaluation:
        path = simulation_path(simulation, "evaluations", number)
        return cast(Evaluation, self.http.request("GET", path))

    def wait_evaluation(
        self, simulation: SimulationRef, number: int, *, timeout: float = 1800.0, poll: float = 1.0
    ) -> Evaluation:
        return _until(
            lambda: self.evaluation(simulation, number),
            lambda evaluation: evaluation["status"] in ("done", "failed"),
            timeout,
            poll,
            f"evaluation {number}",
        )

    # --- helpers -------------------------------------------------------------------------

    def _progress(self, action: str, simulation: SimulationRef, body: Json | None) -> Progress:
        path = simulation_path(simulation, action)
        return cast(Progress, self.http.request("POST", path, body=body))

    def _resident(self, simulation: SimulationRef, resident: str, action: str) -> str:
        return simulation_path(simulation, "residents", resident, action)


def _until(
    read: Callable[[], T], done: Callable[[T], bool], timeout: float, poll: float, what: str
) -> T:
    deadline = time.monotonic() + timeout
    while True:
        last = read()
        if done(last):
            return last
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"{what} did not end within {timeout:g} s", last)
        time.sleep(min(poll, max(0.0, deadline - time.monotonic())))
