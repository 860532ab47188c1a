"""``president up`` (what ``make run`` runs): the whole system from one command, on the
embedded defaults, in a fresh folder — real processes, stopped by Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from benchmarks.ports import free_port
from benchmarks.servers import alive

SEATS = [{"kind": "ai", "engine": level} for level in ("easy", "normal", "easy", "easy")]


def _up(folder: Path, api: int, ai: int, out: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "PRESIDENT_AI_ENGINES")}
    with out.open("wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "president_cli.main", "up", "--api-port", str(api),
             "--ai-port", str(ai)], cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)


def _wait(condition, what: str, out: Path, timeout_s: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"{what}\n{out.read_text(errors='replace')}"
        time.sleep(0.2)


def _serving(url: str) -> bool:
    try:  # (a loaded 2-core machine can take over a second to answer while starting)
        return requests.get(f"{url}/readyz", timeout=5).status_code == 200
    except (requests.ConnectionError, requests.Timeout):
        return False


def test_one_command_runs_everything_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    api, ai, out = free_port(), free_port(), tmp_path / "up.log"
    url = f"http://127.0.0.1:{api}"
    up = _up(tmp_path, api, ai, out)
    try:
        _wait(lambda: _serving(url), "the API did not come up", out)
        created = requests.post(f"{url}/v1/games", json={"preset": "classic", "seats": SEATS,
                                                         "rounds": 1}, timeout=10).json()
        game = f"{url}/v1/games/{created['game']['game_id']}"
        # no AI in the API process: the turns go through the embedded broker to Celery
        # and the gRPC worker, all started by the one command
        _wait(lambda: requests.get(game, timeout=5).json()["status"] == "over",
              "the all-AI game did not finish", out, 120)
        assert requests.get(f"{url}/", timeout=5).status_code == 200  # the play page

        second = subprocess.run([sys.executable, "-m", "president_cli.main", "up",
                                 "--api-port", str(free_port()), "--ai-port", str(free_port())],
                                cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert second.returncode == 1 and "already running" in second.stderr
        assert _serving(url)  # the first one goes on, untouched
    finally:
        os.killpg(up.pid, signal.SIGINT)  # what Ctrl-C in its terminal does
        up.wait(timeout=60)
    assert up.returncode == 0  # a stop asked for is a clean exit
    text = out.read_text(errors="replace")
    first = text.splitlines()[0]
    assert f"{url}/docs" in first and f"{url}/" in first
    for name in ("api", "ai", "worker", "reviews", "beat"):  # each line says whose it is
        assert any(line.split(" | ")[0].split()[-1] == name for line in text.splitlines()
                   if " | " in line), name
    pids = {m.group(1): int(m.group(2)) for m in re.finditer(r"(\w+) started \(pid=(\d+)\)", text)}
    assert set(pids) == {"api", "ai", "worker", "reviews", "beat"}
    _wait(lambda: not any(map(alive, pids.values())), "a process outlived Ctrl-C", out, 20)
    assert (tmp_path / "var" / "president.db").exists() and (tmp_path / "var" / "broker.db").exists()
    assert not _serving(url)
