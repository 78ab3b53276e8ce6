"""What a page asked for and got: to check nothing left the server and no file was missing."""

from __future__ import annotations

from dataclasses import dataclass, field

from playwright.sync_api import Page, Request, Response


@dataclass
class Traffic:
    """Requests and responses of one page, recorded as they happen."""

    origin: str  # the live server's http://127.0.0.1:PORT
    requests: list[str] = field(default_factory=list)
    responses: list[tuple[str, int]] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)  # refused by the page's CSP, never sent
    page: Page | None = None

    def watch(self, page: Page) -> None:
        self.page = page
        page.on("request", self._request)
        page.on("response", self._response)
        page.on("requestfailed", self._failed)

    def _request(self, request: Request) -> None:
        self.requests.append(request.url)

    def _response(self, response: Response) -> None:
        self.responses.append((response.url, response.status))

    def _failed(self, request: Request) -> None:
        if request.failure == "csp":
            self.blocked.append(request.url)

    def offsite(self) -> list[str]:
        """URLs asked of anything but the live server (data: and blob: stay in the page),
        but for those the browser refused to send (the page's Content-Security-Policy)."""
        assert self.page is not None, "watch(page) first"
        self.page.wait_for_load_state("networkidle")  # every request in, failures too
        return [
            url
            for url in self.requests
            if not url.startswith((f"{self.origin}/", "data:", "blob:")) and url not in self.blocked
        ]

    def failed(self) -> list[tuple[str, int]]:
        """Responses of the live server that were errors (a missing stylesheet, a 500)."""
        return [(url, status) for url, status in self.responses if status >= 400]

    def static(self) -> list[str]:
        """Static files the page loaded."""
        return [url for url, status in self.responses if "/static/" in url and status == 200]
