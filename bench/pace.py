"""A run at a pace with people in the town: `python -m bench pace [--minutes M] [--pace P]
[--residents N] [--people K] [--engine E]`.

Makes a base_the_ville_n25 simulation (offline backend, the paper's cognition; more
residents spread over the Ville with `--residents`), has K of its residents taken over
as people do when they step in, and runs it at `--pace` sim seconds a wall second (10:
one 10 s step a second) through a worker of two processes for `--minutes` of wall time.
Every second it reads how far the log stands against the pace's schedule. It prints the
ratio held (steps the log reached over the steps the schedule gave, over the whole
window and over the window after the first step, which plans every resident's day), the
largest lag behind the schedule in steps, and the worker's CPU seconds a step: how much
of each step's wall time the engine needs, so how many more residents the machine could
serve at that pace. The offline backend's numbers show the mechanics, not a model's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

from django.conf import settings
from django.utils import timezone

from agents.services import simulation_create_from_base
from bench.load.sampling import group_cpu_seconds
from bench.machine import stamp
from bench.runs import bench_owner, leftovers_pause
from bench.towns import residents_spread
from runtime.controls import agent_take_control
from runtime.engine import simulation_pause, simulation_run
from runtime.pace import pace_of
from runtime.workerproc import private_worker
from world.models import Agent, Simulation, SimulationStatus

N25 = "base_the_ville_n25"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench pace", description=__doc__)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--pace", type=float, default=10.0)
    parser.add_argument("--residents", type=int, default=25)
    parser.add_argument("--people", type=int, default=2)
    parser.add_argument("--engine", choices=["barrier", "ahead"], default="barrier")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if settings.SMALLVILLE_LLM_BACKEND != "offline":
        parser.error("the bench runs the offline backend: unset SMALLVILLE_LLM_BACKEND")
    leftovers_pause()
    simulation = simulation_create_from_base(
        owner=bench_owner(), base=N25, seed=args.seed, config={"cognition": "paper"}
    )
    if args.residents > 25:
        residents_spread(simulation, args.residents, seed=args.seed)
    for agent in Agent.objects.filter(simulation=simulation).order_by("name")[: args.people]:
        agent_take_control(simulation=simulation, agent=agent)
    wall = args.minutes * 60
    interval = simulation.sec_per_step / args.pace
    steps = math.ceil(wall / interval) + 10  # more than the window can reach
    env = {"SMALLVILLE_ENGINE": args.engine}
    lags: list[int] = []
    reached: list[tuple[float, int]] = []  # (seconds since the run started, log's step)
    with private_worker(env=env, concurrency=2) as worker:
        group = os.getpgid(worker.pid)
        cpu = group_cpu_seconds(group)
        simulation_run(simulation=simulation, steps=steps, pace=args.pace)
        simulation.refresh_from_db()
        pace = pace_of(simulation)
        assert pace.from_at is not None
        while (timezone.now() - pace.from_at).total_seconds() < wall:
            time.sleep(1)
            simulation.refresh_from_db()
            now = timezone.now()  # after the read: the step read stood by then
            if simulation.status != SimulationStatus.RUNNING:
                break
            limit = pace.limit(now)
            assert limit is not None
            lags.append(limit - simulation.step)
            reached.append(((now - pace.from_at).total_seconds(), simulation.step))
        simulation_pause(simulation=Simulation.objects.get(pk=simulation.pk))
        cpu = group_cpu_seconds(group) - cpu
    residents = Agent.present.filter(simulation=simulation).count()
    first_step_s = next((t for t, step in reached if step >= 1), None)
    end_s, end_step = reached[-1]
    expected = math.floor(end_s / interval) + 1
    after = None
    if first_step_s is not None:
        # from when the first step (everyone's day plan) was in, to the end
        start_step = next(step for t, step in reached if t >= first_step_s)
        after = (end_step - start_step) / max(1e-9, (end_s - first_step_s) / interval)
    print(
        json.dumps(
            {
                **stamp(),
                "bench": "pace",
                "backend": "offline (rules: the mechanics, not a model's words)",
                "engine": args.engine,
                "residents": residents,
                "people": args.people,
                "pace": args.pace,
                "wall_seconds_per_step": interval,
                "window_seconds": round(end_s, 1),
                "steps_reached": end_step,
                "steps_due": expected,
                "held": round(end_step / expected, 4),
                "held_after_first_step": None if after is None else round(after, 4),
                "first_step_seconds": first_step_s,
                "largest_lag_steps": max(lags, default=0),
                "worker_cpu_seconds_per_step": round(cpu / max(1, end_step), 4),
                "worker_busy_share": round(cpu / max(1e-9, end_s) / 2, 4),
                # the residents 2 cores could keep at this pace, were the worker's CPU a
                # resident-step all there is (Postgres's and the first step's left out)
                "residents_at_this_pace_estimate": int(
                    2 * interval / max(1e-9, cpu / max(1, end_step) / max(1, residents))
                ),
            },
            indent=2,
        )
    )
