"""The page's files as the API serves them: right content types, inside the package,
and out of the OpenAPI spec (a client of the API, not a part of it)."""

from __future__ import annotations

import re
from typing import Iterator

import pytest
from flask.testing import FlaskClient

from services.api.app import create_app
from services.api.web import FILES
from services.container import Container

IMPORT = re.compile(r'from "\./([\w-]+\.js)"')


@pytest.fixture
def client(container: Container) -> Iterator[FlaskClient]:
    with create_app(container).test_client() as c:
        yield c


def test_the_page_is_served_at_the_root(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert '<script type="module" src="/play/app.js">' in page
    assert client.get("/play/style.css").mimetype == "text/css"


def test_every_module_the_page_imports_is_served_as_javascript(client: FlaskClient) -> None:
    pending, seen = ["app.js"], set()
    while pending:
        name = pending.pop()
        seen.add(name)
        response = client.get(f"/play/{name}")
        assert response.status_code == 200, name
        assert response.mimetype == "text/javascript", name  # browsers refuse other types
        pending += set(IMPORT.findall(response.get_data(as_text=True))) - seen
    assert seen == {p.name for p in FILES.glob("*.js")}  # no module left unused


@pytest.mark.parametrize("path", ["/play/missing.js", "/play/../web.py", "/play/app.py"])
def test_nothing_else_is_served(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


def test_the_page_is_not_in_the_openapi_spec(client: FlaskClient) -> None:
    paths = client.get("/openapi.json").get_json()["paths"]
    assert "/v1/games" in paths
    assert not [p for p in paths if p == "/" or p.startswith("/play")]
