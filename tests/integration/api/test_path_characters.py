"""A path with a control character names nothing: a 404 ``not_found`` problem, on SQLite
and on PostgreSQL (whose text refuses a NUL: it was a 500 there), wherever it falls."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from test_http import assert_problem


@pytest.mark.parametrize("path", [
    "/v1/games/a%00b", "/v1/games/a%00b/events", "/v1/games/%1f/actions",
    "/v1/leaderboards/a%00b", "/v1/players/a%7fb", "/v1/webhooks/%00",
    "/v1/ga%00mes",
])
def test_a_path_with_a_control_character_is_not_found(client: FlaskClient, path: str) -> None:
    method = client.post if path.endswith("/actions") else client.get
    assert_problem(method(path, json={"action": "pass", "version": 0}
                          if path.endswith("/actions") else None), 404, "not_found")
