"""The API's docs page in Chromium, under the service's Content-Security-Policy: Swagger
UI from the service's own files renders the service's own document (the ``page``
fixture fails the test on any script error or anything the policy refused)."""

from __future__ import annotations

from playwright.sync_api import Page, expect


def test_the_docs_page_renders_the_document_under_the_policy(page: Page) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("/docs")
    expect(page.locator(".information-container .title")).to_contain_text(
        "Président game service", timeout=15_000)
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    base = page.url.split("/docs")[0]
    assert requested and all(url.startswith(base) or url.startswith("data:")
                             for url in requested), requested
