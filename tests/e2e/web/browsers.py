"""The play page's browser tests' own helper: a page watched for script errors."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from playwright.sync_api import Browser, Page


@contextmanager
def watched_page(browser: Browser, live_server: str) -> Iterator[Page]:
    """A fresh browser profile (empty localStorage) on the service, failing the test on
    any uncaught error in the page's scripts and on anything the Content-Security-Policy
    refused (the browser says so on the console)."""
    context = browser.new_context(base_url=live_server, viewport={"width": 390, "height": 844})
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text)
            if "Content Security Policy" in message.text else None)
    yield page
    context.close()  # closes the event stream before the server goes
    assert not errors, errors
