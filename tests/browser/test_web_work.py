"""The web face as a place to work, in a real browser: the list says each simulation's
base, model, step and status; fork at the step shown, evaluate and open the report from
the viewer, and delete after a confirmation page, each ending as the REST call does."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from agents.services import simulation_create_from_base
from evaluations.models import Evaluation, EvaluationStatus
from runtime.engine import simulation_run_inline
from tests.browser.served import LiveServer
from tests.factories import N3
from world.models import Event, Simulation, SimulationStatus

from .traffic import Traffic

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "dara-password-1"


@pytest.fixture
def dara(db: None) -> User:
    return User.objects.create_user(username="dara", password=PASSWORD)


def _ran(owner: User, name: str, steps: int) -> Simulation:
    simulation = simulation_create_from_base(
        owner=owner, base=N3, seed=5, name=name, config={"cognition": "minimal"}
    )
    return simulation_run_inline(simulation=simulation, steps=steps)


def test_fork_at_the_step_shown_and_evaluate_from_the_viewer(
    live_server: LiveServer, page: Page, login, artifact, traffic: Traffic, dara: User
) -> None:
    source = _ran(dara, "Quarry lane", 12)
    login(page, dara, PASSWORD)
    page.goto(f"{live_server.url}/simulations/{source.pk}/")
    page.wait_for_selector("#viewer[data-ready=true]")

    # Evaluate at the step shown: the worker runs it, the list links its report.
    page.click("#evaluations-panel summary")
    page.uncheck("#evaluate input[value=relationships]")
    with live_server.worker():
        page.click("#evaluate button[type=submit]")
        row = page.locator("#evaluations li[data-number='1']")
        expect(row).to_have_attribute("data-status", "done", timeout=120_000)
    evaluation = Evaluation.objects.get(simulation=source, number=1)
    assert (evaluation.kinds, evaluation.step) == (["diffusion"], 12)
    assert evaluation.status == EvaluationStatus.DONE
    with page.expect_popup() as opened:
        row.get_by_role("link", name="report").click()
    report = opened.value
    report.wait_for_load_state()
    assert "diffusion" in report.content().lower()
    report.close()
    artifact(page, "viewer-evaluations")

    # Fork at step 7: scrub there, click, land in the fork's viewer.
    page.evaluate("() => { const s = document.getElementById('slider');"
                  " s.value = '7'; s.dispatchEvent(new Event('input')); }")  # fmt: skip
    page.wait_for_function("window.smallvilleViewer.shownStep === 7")
    page.click("#fork")
    page.wait_for_url(lambda url: not url.endswith(f"/simulations/{source.pk}/"))
    page.wait_for_selector("#viewer[data-ready=true]")
    fork = Simulation.objects.get(parent=source)
    assert page.url == f"{live_server.url}/simulations/{fork.pk}/"
    assert (fork.forked_at_step, fork.step, fork.owner) == (7, 7, dara)
    # The same log as the REST fork gives: the source's up to and including step 7.
    copied = list(Event.objects.filter(simulation=fork).order_by("seq").values_list(
        "seq", "kind", "agent", "payload"))  # fmt: skip
    original = list(Event.objects.filter(simulation=source, step__lte=7).order_by("seq")
                    .values_list("seq", "kind", "agent", "payload"))  # fmt: skip
    assert copied == original
    assert traffic.offsite() == [] and traffic.failed() == []


def test_the_list_says_what_each_is_and_delete_asks_first(
    live_server: LiveServer, page: Page, login, artifact, dara: User
) -> None:
    kept = _ran(dara, "Mill pond", 3)
    doomed = _ran(dara, "Reed marsh", 2)
    login(page, dara, PASSWORD)
    row = page.locator(f".simulation-list li[data-simulation='{doomed.pk}']")
    expect(row).to_contain_text(f"base {N3}")
    expect(row).to_contain_text("model offline")
    expect(row).to_contain_text("step 2")
    expect(row).to_contain_text("idle")

    # Running, it is refused, and nothing goes.
    Simulation.objects.filter(pk=doomed.pk).update(status=SimulationStatus.RUNNING)
    row.get_by_role("link", name=f"delete {doomed.name}").click()
    expect(page.locator(".confirm-delete h1")).to_contain_text("Reed marsh")
    page.click(".confirm-delete button[type=submit]")
    expect(page.locator(".confirm-delete .error")).to_contain_text("pause it first")
    assert Simulation.objects.filter(pk=doomed.pk).exists()

    Simulation.objects.filter(pk=doomed.pk).update(status=SimulationStatus.PAUSED)
    page.goto(f"{live_server.url}/simulations/{doomed.pk}/delete/")
    expect(page.locator(".confirm-delete")).to_contain_text("events")
    artifact(page, "delete-confirm")
    page.click(".confirm-delete button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    assert not Simulation.objects.filter(pk=doomed.pk).exists()
    assert not Event.objects.filter(simulation_id=doomed.pk).exists()
    expect(page.locator(f".simulation-list li[data-simulation='{kept.pk}']")).to_be_visible()
    expect(page.locator(f".simulation-list li[data-simulation='{doomed.pk}']")).to_have_count(0)


def test_another_users_simulation_cannot_be_deleted_from_the_web_face(
    live_server: LiveServer, page: Page, login, dara: User, other_user: User
) -> None:
    theirs = _ran(other_user, "Not yours", 1)
    login(page, dara, PASSWORD)
    answer = page.goto(f"{live_server.url}/simulations/{theirs.pk}/delete/")
    assert answer is not None and answer.status == 404
    posted = page.request.post(f"{live_server.url}/simulations/{theirs.pk}/delete/")
    assert posted.status in (403, 404)  # no CSRF token, and not theirs to delete
    assert Simulation.objects.filter(pk=theirs.pk).exists()
