"""Swagger UI and Redoc in a real browser: they render the API from files of this server's
(drf-spectacular-sidecar), with no CDN and no outside font."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.served import LiveServer

from .traffic import Traffic


def test_swagger_ui_renders_operations(
    live_server: LiveServer, page: Page, traffic: Traffic, artifact, db: None
) -> None:
    page.goto(f"{live_server.url}/api/docs/")
    expect(page.locator(".info .title")).to_contain_text("Smallville API")
    expect(page.locator(".opblock").first).to_be_visible()
    assert page.locator(".opblock").count() > 10
    expect(
        page.locator(".opblock-summary-path[data-path='/api/simulations/']").first
    ).to_be_visible()
    # No badge asking validator.swagger.io about the schema from a public host.
    assert page.evaluate("ui.getConfigs().validatorUrl") is None
    artifact(page, "swagger-ui")
    assert traffic.offsite() == []
    assert traffic.failed() == []
    assert any("/static/drf_spectacular_sidecar/swagger-ui-dist/" in u for u in traffic.static())


def test_redoc_renders_operations(
    live_server: LiveServer, page: Page, traffic: Traffic, artifact, db: None
) -> None:
    page.goto(f"{live_server.url}/api/redoc/")
    # Redoc lays out the whole schema (about 290 KB) before its first heading: seconds, on
    # a busy machine more than expect's default 5.
    expect(page.locator("h1").first).to_contain_text("Smallville API", timeout=30_000)
    operations = page.locator("[data-section-id^='operation/']")
    expect(operations.first).to_be_attached()
    assert operations.count() > 10
    artifact(page, "redoc")
    assert traffic.offsite() == []
    # Redoc's bundle always asks for Redocly's logo; the page's CSP stops it in the browser.
    assert traffic.blocked == ["https://cdn.redoc.ly/redoc/logo-mini.svg"]
    assert traffic.failed() == []
    assert any("/static/drf_spectacular_sidecar/redoc/" in u for u in traffic.static())
