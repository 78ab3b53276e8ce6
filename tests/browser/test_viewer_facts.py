"""Colour by fact in a real browser: a made-up piece of news whispered to one resident by a
scenario at a known step and told on at known steps, the residents drawn by whether they
hold it at the step shown, and the colours following the replay slider."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page

from agents.services import simulation_create_from_base
from evaluations.fact_selectors import fact_holders, facts_named
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from runtime.engine import simulation_run_inline
from runtime.scenarios import scenario_add
from tests.browser.drawn import near, pixel
from tests.browser.served import LiveServer
from tests.browser.test_viewer import PASSWORD, _open, _scrub, _settled
from tests.factories import N3
from world.models import Simulation

Login = Callable[[Page, User, str], None]
Artifact = Callable[[Page, str], Path]

pytestmark = pytest.mark.django_db(transaction=True)

ISABELLA, MARIA, KLAUS = "Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"
NEWS = "the clock tower will chime thirteen times at noon"
# The page's colours (facts.js FACT_COLOURS): the source, another holder, not holding.
SOURCE, HOLDS, NOT = [91, 42, 134], [181, 70, 15], [107, 114, 128]
WHISPERED, TOLD_MARIA, TOLD_KLAUS, LAST = 5, 12, 24, 30


def _tell(simulation: Simulation, agent: str, teller: str) -> None:
    """`teller` tells `agent` the news now (a conversation's memo, as the cognition's)."""
    text = f"{teller} said that {NEWS}."
    draft = MemoryDraft(
        agent=agent,
        kind=MemoryKind.CONVERSATION,
        description=text,
        importance=6,
        source={"from": teller},
    )
    memories_create(simulation=simulation, drafts=[draft])


def _news_travels(owner: User) -> Simulation:
    """Isabella is whispered the news at step 5; she tells Maria at 12, Maria tells Klaus
    at 24; the run stops at 30."""
    simulation = simulation_create_from_base(
        owner=owner, base=N3, seed=3, config={"cognition": "minimal"}
    )
    scenario_add(
        simulation=simulation,
        kind="whisper",
        at=simulation.sim_time_at(WHISPERED),
        params={"resident": ISABELLA, "statement": f"I heard that {NEWS}."},
    )
    simulation = simulation_run_inline(simulation=simulation, steps=TOLD_MARIA)
    _tell(simulation, MARIA, ISABELLA)
    simulation = simulation_run_inline(simulation=simulation, steps=TOLD_KLAUS - TOLD_MARIA)
    _tell(simulation, KLAUS, MARIA)
    return simulation_run_inline(simulation=simulation, steps=LAST - TOLD_KLAUS)


def _point(page: Page, name: str) -> tuple[float, float]:
    """Where resident `name` is drawn, once settled."""
    drawn = _settled(page)
    x, y = drawn["points"][drawn["names"].index(name)]
    return float(x), float(y)


def _disc(page: Page, name: str) -> list[int]:
    """The RGB of resident `name`'s shirt (the middle of its figure)."""
    x, y = _point(page, name)
    return pixel(page, x, y)[:3]


def _count(page: Page) -> str:
    return page.inner_text("#fact-count")


def test_residents_are_coloured_by_a_fact_along_the_replay(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _news_travels(user)
    assert simulation.step == LAST
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    # The select offers the base's named facts.
    offered = page.locator("#fact-select option").all_inner_texts()[1:]
    assert offered == [f.text for f in facts_named(simulation=simulation)]
    own = {n: _disc(page, n) for n in (ISABELLA, MARIA, KLAUS)}

    # Any clause, typed and sent with the keyboard.
    page.focus("#fact-text")
    page.keyboard.type(NEWS)
    page.keyboard.press("Enter")
    page.wait_for_function("document.getElementById('fact-count').dataset.holding === '3'")
    assert _count(page) == f"3 of 3 hold it at step {LAST}"
    assert "source: Isabella Rodriguez" in page.inner_text("#fact-source")
    live = {n: _disc(page, n) for n in (ISABELLA, MARIA, KLAUS)}
    assert near(live[ISABELLA], SOURCE) and near(live[MARIA], HOLDS), live
    assert near(live[KLAUS], HOLDS), live
    assert live != own, "the residents kept their own colours"
    artifact(page, "viewer-facts-live")

    # Before the whisper nobody holds it; then the source; then one more at each telling.
    expected = [
        (WHISPERED - 1, 0, NOT, NOT, NOT),
        (WHISPERED, 1, SOURCE, NOT, NOT),
        (TOLD_MARIA - 1, 1, SOURCE, NOT, NOT),
        (TOLD_MARIA, 2, SOURCE, HOLDS, NOT),
        (TOLD_KLAUS, 3, SOURCE, HOLDS, HOLDS),
        (2, 0, NOT, NOT, NOT),  # and back
    ]
    for step, holding, isabella, maria, klaus in expected:
        _scrub(page, step)
        page.wait_for_function(
            f"document.getElementById('fact-count').dataset.holding === '{holding}'"
        )
        assert _count(page) == f"{holding} of 3 hold it at step {step}"
        discs = {n: _disc(page, n) for n in (ISABELLA, MARIA, KLAUS)}
        assert near(discs[ISABELLA], isabella), (step, discs)
        assert near(discs[MARIA], maria), (step, discs)
        assert near(discs[KLAUS], klaus), (step, discs)
    # The source is ringed in gold even before it holds it.
    x, y = _point(page, ISABELLA)
    radius = page.evaluate("window.smallvilleViewer.town.radius")
    assert near(pixel(page, x + radius * 1.25, y)[:3], [242, 193, 78], 40)  # people.js RING

    # A resident's panel says who told it and when.
    _scrub(page, TOLD_KLAUS)
    x, y = _point(page, KLAUS)
    page.locator("#map").click(position={"x": x, "y": y})
    page.wait_for_selector("#resident-fact:not([hidden])")
    said = page.inner_text("#resident-fact")
    assert f"since step {TOLD_KLAUS}" in said and f"told by {MARIA}" in said, said
    artifact(page, "viewer-facts-replay")

    # A fact the base names, from the select: its holders as the memories say.
    named = facts_named(simulation=simulation)[0]
    page.select_option("#fact-select", "0")
    page.wait_for_function(
        "(text) => document.getElementById('map').dataset.fact === text", arg=named.text
    )
    holders = fact_holders(simulation=simulation, fact=named).holders
    holding = sum(h.step <= TOLD_KLAUS for h in holders)
    assert _count(page) == f"{holding} of 3 hold it at step {TOLD_KLAUS}"

    # Clear: everyone in their own colour again.
    page.click("#fact-clear")
    page.wait_for_function("!document.getElementById('map').dataset.fact")
    assert page.locator("#fact-panel-body").is_hidden()
    assert near(_disc(page, MARIA), own[MARIA]), "Maria kept the fact's colour"
