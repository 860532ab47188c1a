"""Integrators generate their client from /openapi.json: a Python client made by
openapi-python-client, from the document a running service serves, plays a whole series
through the service (create, read its seat's view, play its legal actions, follow the
events, read the rounds), and gets the document's problems back as typed values."""

from __future__ import annotations

import importlib
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
from werkzeug.serving import make_server

import bootstrap
from services.store.db import upgrade

PACKAGE = "president_client"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[str]:
    store = bootstrap.open_store(f"sqlite:///{tmp_path}/president.db")
    upgrade(store.engine)
    server = make_server("127.0.0.1", 0, bootstrap.api_app(bootstrap.container(store=store)),
                         threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    store.close()


@pytest.fixture
def client_package(service: str, tmp_path: Path) -> Iterator[Any]:
    (tmp_path / "config.yaml").write_text(f"package_name_override: {PACKAGE}\npost_hooks: []\n")
    generator = Path(sys.executable).with_name("openapi-python-client")
    subprocess.run([str(generator), "generate", "--url", f"{service}/openapi.json",
                    "--config", str(tmp_path / "config.yaml"), "--meta", "none",
                    "--output-path", str(tmp_path / PACKAGE)],
                   check=True, capture_output=True, text=True, timeout=120)
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def test_a_generated_client_plays_a_whole_series(service: str, client_package: Any) -> None:
    api = importlib.import_module(f"{PACKAGE}.api.games")
    history = importlib.import_module(f"{PACKAGE}.api.history")
    models = importlib.import_module(f"{PACKAGE}.models")
    for name in ("create_game", "get_game", "play_action", "get_events"):
        importlib.import_module(f"{PACKAGE}.api.games.{name}")
    importlib.import_module(f"{PACKAGE}.api.history.get_rounds")
    anonymous = client_package.Client(base_url=service, raise_on_unexpected_status=True)
    seats = [models.SeatIn(kind=models.SeatInKind.HUMAN)] + [
        models.SeatIn(kind=models.SeatInKind.AI, engine="easy") for _ in range(3)]
    created = api.create_game.sync(client=anonymous, body=models.CreateGameIn(
        preset="classic", seats=seats, rounds=1, seed=3))
    assert isinstance(created, models.CreatedOut)
    game_id, token = created.game.game_id, created.tokens["0"]
    mine = client_package.AuthenticatedClient(base_url=service, token=token,
                                              raise_on_unexpected_status=True)
    moves = 0
    while True:
        game = api.get_game.sync(game_id, client=mine)
        assert isinstance(game, models.GameOut)
        if game.status.value == "over":
            break
        if game.view.to_act != 0:  # the AIs play after each answer
            api.get_events.sync(game_id, client=mine, after=0, wait=0.2)
            continue
        played = api.play_action.sync(game_id, client=mine, body=models.ActIn(
            action=game.view.legal_actions[-1], version=game.version))
        assert isinstance(played, models.GameOut) and played.version > game.version
        moves += 1
    assert moves >= 3 and game.view.to_act == -1
    rounds = history.get_rounds.sync(game_id, client=mine)
    assert isinstance(rounds, models.RoundsOut) and len(rounds.rounds) == 1
    stale = api.play_action.sync(game_id, client=mine, body=models.ActIn(action="pass",
                                                                         version=0))
    assert isinstance(stale, models.Problem) and stale.code == "stale_version"
