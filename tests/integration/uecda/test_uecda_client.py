"""``president uecda client`` against a small UECda server written from UECDA.md §6 (in
``tests/uecda_server.py``): real TCP on loopback, whole matches of five clients."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from president_cli.main import main
from uecda_server import Server
from workers.uecda.client import play_match
from workers.uecda.tables import TABLE_BYTES

LEVELS = ("normal", "easy", "normal", "easy", "easy")  # deterministic given the seeds


def _match(server: Server, levels: tuple[str, ...] = LEVELS) -> list[dict[str, Any]]:
    """Five clients, connected in order (the server numbers them so), to the end."""
    return _match_from(server, 0, levels)


def _match_from(server: Server, first: int, levels: tuple[str, ...]) -> list[dict[str, Any]]:
    """Clients for players ``first`` … 4, connected in order, played to the end."""
    results: list[dict[str, Any]] = [{} for _ in levels]
    threads = []
    for index, level in enumerate(levels):
        player = first + index

        def run(index: int = index, player: int = player, level: str = level) -> None:
            results[index] = play_match("127.0.0.1", server.port, level, f"p{player}",
                                        seed=player, timeout=30)
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        threads.append(thread)
        while len(server._clients) <= player and server.thread.is_alive():  # in order
            server.thread.join(0.01)
    for thread in threads:
        thread.join(120)
    server.thread.join(30)
    assert not any(t.is_alive() for t in threads) and server.error is None, server.error
    return results


def test_five_clients_play_a_whole_match() -> None:
    server = Server(games=4, seed=7).start()
    results = _match(server)
    assert [r["player"] for r in results] == [0, 1, 2, 3, 4]
    for r in results:
        assert r["games"] == 4 and not r["disconnected"] and r["unreadable"] == 0, r
        assert r["rejected"] == 0 and r["accepted"] > 0
    # every client followed every game to the place the server gave it
    assert [r["places"] for r in results] == [list(p) for p in zip(*server.places)]
    assert sum(r["points"] for r in results) == 15 * 4  # 5+4+3+2+1 a game
    stats = server.stats
    assert stats.games == 4 and stats.rejected == 0
    # the rules that make tables hard to read came up: the lock, a revolution, a joker
    # in a group (naming its cell), the lone joker, seats drawn anew (game 4)
    assert stats.locked_turns > 0 and stats.revolutions > 0
    assert stats.joker_groups > 0 and stats.lone_jokers > 0


def test_the_searching_levels_play_through_the_protocol() -> None:
    server = Server(games=1, seed=2).start()
    results = _match(server, ("hard", "easy", "expert", "normal", "easy"))
    assert all(r["games"] == 1 and r["unreadable"] == 0 and r["rejected"] == 0
               for r in results), results
    assert [r["places"] for r in results] == [list(p) for p in zip(*server.places)]


def test_rejected_plays_count_as_passes_and_the_match_goes_on() -> None:
    server = Server(games=2, seed=5, reject_every=4).start()
    results = _match(server)
    assert server.stats.rejected > 0
    assert sum(r["rejected"] for r in results) >= server.stats.rejected
    for r in results:
        assert r["games"] == 2 and r["unreadable"] == 0 and not r["disconnected"], r


def test_a_table_the_client_cannot_read_is_answered_by_a_pass() -> None:
    server = Server(games=1, seed=7, garbage_turn=10).start()
    results = _match(server)
    assert server.stats.garbage_answers == [bytes(TABLE_BYTES)]  # 480 zeros: the pass
    assert sum(r["unreadable"] for r in results) == 1
    assert all(r["games"] == 1 and not r["disconnected"] for r in results)


def test_a_closed_connection_ends_the_client_without_an_error() -> None:
    server = Server(games=3, seed=1, close_after=25).start()
    results = _match(server)
    assert all(r["disconnected"] and r["games"] == 0 for r in results)


def test_no_server_is_a_clear_error() -> None:
    server = Server(games=1)
    port = server.port
    server.listener.close()
    with pytest.raises(ConnectionRefusedError):
        play_match("127.0.0.1", port, "easy", "x", timeout=5)


def test_the_president_uecda_client_command_plays_a_seat() -> None:
    server = Server(games=2, seed=4).start()
    command = subprocess.Popen(
        [str(Path(sys.executable).with_name("president")), "uecda", "client", "--port",
         str(server.port), "--level", "normal", "--name", "cli"],
        stdout=subprocess.PIPE, text=True)
    while not server._clients and server.thread.is_alive():  # the command is player 0
        server.thread.join(0.01)
    others = _match_from(server, 1, ("easy", "normal", "easy", "easy"))
    out, _ = command.communicate(timeout=120)
    assert command.returncode == 0
    summary = json.loads(out)
    assert summary["player"] == 0 and summary["games"] == 2 and summary["unreadable"] == 0
    assert [summary["places"], *(r["places"] for r in others)] == \
        [list(p) for p in zip(*server.places)]


def test_the_command_says_in_a_line_when_no_server_answers(
        capsys: pytest.CaptureFixture[str]) -> None:
    server = Server(games=1)
    port = server.port
    server.listener.close()
    assert main(["uecda", "client", "--port", str(port)]) == 2
    assert f"cannot reach the UECda server at 127.0.0.1:{port}" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["uecda", "client", "--port", "70000"])
    assert "1 to 65535" in capsys.readouterr().err


def test_an_unreadable_deal_is_played_out_by_passes() -> None:
    server = Server(games=2, seed=7, garbage_deal=1).start()  # game 2, player 0
    results = _match(server)
    assert results[0]["games"] == 2 and results[0]["unreadable"] >= 1
    followed = server.places[0][0]  # game 1 was read: its place is the server's
    assert results[0]["places"] == [followed, None]  # game 2's is not known
    assert results[0]["points"] == 5 - followed
    assert all(not r["disconnected"] for r in results)
    assert all(r["unreadable"] == 0 for r in results[1:])
