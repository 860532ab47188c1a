"""The play page under test: the API on a real loopback server (a thread, a fresh SQLite
database and a free port per test, so pytest-xdist workers never share one), and
Debian's Chromium driven by Playwright."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from werkzeug.serving import make_server

import bootstrap
from services.api.app import create_app
from services.container import Container
from services.store.db import upgrade
from browsers import watched_page

CHROMIUM = Path("/usr/bin/chromium")
# Without these, Chromium's background connections (updates, sync, QUIC probes) are
# refused by this closed network and slow every launch down.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"


@pytest.fixture
def container(tmp_path: Path) -> Iterator[Container]:
    store = bootstrap.open_store(f"sqlite:///{tmp_path}/president.db")
    upgrade(store.engine)
    yield bootstrap.container(store=store)  # AI seats play inline
    store.close()


@pytest.fixture
def request_targets() -> list[str]:
    """Every request line's target (path and query, as an access log records it) that
    ``live_server`` received, in order."""
    return []


@pytest.fixture
def live_server(container: Container, request_targets: list[str]) -> Iterator[str]:
    """The service's base URL, e.g. http://127.0.0.1:41234."""
    app = create_app(container)

    def recorded(environ: dict[str, Any], start_response: Any) -> Any:
        request_targets.append(environ["RAW_URI"])
        return app(environ, start_response)

    server = make_server("127.0.0.1", 0, recorded, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium package "
                    "(.ci/run does) to run the browser tests")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser, live_server: str) -> Iterator[Page]:
    with watched_page(browser, live_server) as one:
        yield one


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
