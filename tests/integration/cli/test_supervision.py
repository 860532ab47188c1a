"""Processes that stop unasked are restarted, not taken for a clean stop: ``president
celery-worker`` ends with a failure code when Celery gives up by itself, and ``president
up`` runs each process under ``president_cli.supervise``, which starts it again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


BROKEN_WORKER = """
import sys
from celery.worker.consumer.consumer import Consumer

def broken(self):
    raise AttributeError("'NoneType' object has no attribute 'hostname'")

Consumer.start = broken
from president_cli.main import main
sys.exit(main(["celery-worker", "--pool", "solo", "--loglevel", "CRITICAL"]))
"""


def test_a_celery_worker_that_stops_unasked_exits_with_a_failure(tmp_path: Path) -> None:
    """Celery's consumer dying ("Unrecoverable error", as a Redis restart once made it)
    ends the worker; ``worker_main`` would exit 0 and a supervisor restarting failures
    only would leave it down. (In a process of its own: a worker leaves Celery's state
    set for the rest of the process.)"""
    env = {**os.environ, "CELERY_BROKER_URL": "memory://",
           "DATABASE_URL": f"sqlite:///{tmp_path}/p.db"}
    done = subprocess.run([sys.executable, "-c", BROKEN_WORKER], env=env, timeout=120,
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "stopped unasked" in done.stderr


COUNTING = """
import pathlib, sys, time
runs = pathlib.Path(sys.argv[1])
runs.write_text(runs.read_text() + "x" if runs.exists() else "x")
if len(runs.read_text()) < 3:
    sys.exit(int(sys.argv[2]))  # falls over (or stops with 0, unasked)
time.sleep(60)
"""


@pytest.mark.parametrize("code", [0, 1])
def test_supervise_restarts_a_command_that_stops_unasked_and_stops_it_once_asked(
        tmp_path: Path, code: int) -> None:
    runs = tmp_path / "runs"
    script = tmp_path / "counting.py"
    script.write_text(COUNTING)
    supervised = subprocess.Popen(
        [sys.executable, "-m", "president_cli.supervise", sys.executable, str(script),
         str(runs), str(code)], stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not (runs.exists() and len(runs.read_text()) == 3):
            assert time.monotonic() < deadline, "not restarted"
            assert supervised.poll() is None, "supervise stopped with its command"
            time.sleep(0.05)
        os.killpg(supervised.pid, signal.SIGTERM)  # as honcho stops it: its whole group
        assert supervised.wait(10) == 128 + signal.SIGTERM  # the command's, as a shell says
    finally:
        if supervised.poll() is None:
            supervised.kill()
    assert len(runs.read_text()) == 3  # started twice again, never after the stop
    said = supervised.stderr.read().decode() if supervised.stderr else ""
    assert said.count("stopped unasked") == 2 and f"exit code {code}" in said
