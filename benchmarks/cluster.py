"""The whole system as real processes on loopback: for end-to-end tests and benchmarks.

``Cluster`` starts, each as its own ``president`` subprocess with its own log file, gRPC
AI workers, Celery workers, Celery beat and API servers (gunicorn), all on one database
and one broker — the embedded default (SQLite + kombu's SQL transport) or PostgreSQL +
Redis. A caller kills and restarts them as it likes; ``close`` stops whatever is left.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from workers.rpc.client import wait_serving
from benchmarks.ports import free_port, reserved_port
from workers.ai import LEVELS

# The `president` command of this installation, as a process (benchmarks never import it).
PRESIDENT = [sys.executable, "-m", "president_cli.main"]


@dataclass(frozen=True)
class Backend:
    name: str
    database_url: str
    broker_url: str


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def tail(self, lines: int = 30) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return f"--- {self.name} ({self.log}) ---\n" + "\n".join(text.splitlines()[-lines:])

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the process and every process it started (its group)."""
        try:
            os.killpg(self.popen.pid, sig)
        except ProcessLookupError:
            pass
        try:
            self.popen.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=5)


@dataclass
class Cluster:
    backend: Backend
    workdir: Path
    settings: dict[str, str] = field(default_factory=dict)  # extra environment
    procs: list[Proc] = field(default_factory=list)
    api_urls: list[str] = field(default_factory=list)
    # The AI workers' port, held from start to close: a worker killed and started again
    # finds it free.
    _grpc_hold: socket.socket = field(default_factory=reserved_port, repr=False)

    @property
    def grpc_port(self) -> int:
        return int(self._grpc_hold.getsockname()[1])

    @property
    def env(self) -> dict[str, str]:
        target = f"127.0.0.1:{self.grpc_port}"
        return {**os.environ, "DATABASE_URL": self.backend.database_url,
                "CELERY_BROKER_URL": self.backend.broker_url,
                "PRESIDENT_AI_ENGINES": ",".join(f"{level}={target}" for level in LEVELS),
                "PRESIDENT_SWEEP_EVERY_S": "1",
                "PRESIDENT_AI_RETRY_BASE_MS": "100", "PYTHONUNBUFFERED": "1",
                # every client of a test or a benchmark comes from one address
                "PRESIDENT_RATE_STORAGE": "off", "PRESIDENT_QUOTA_GAMES_ANONYMOUS": "100000",
                "PRESIDENT_QUOTA_AI_SECONDS_ANONYMOUS": "1000000",
                **self.settings}

    def _start(self, name: str, *args: str) -> Proc:
        log = self.workdir / f"{name}.log"
        with log.open("ab") as out:
            popen = subprocess.Popen([*PRESIDENT, *args], cwd=self.workdir, env=self.env,
                                     stdout=out, stderr=subprocess.STDOUT,
                                     start_new_session=True)  # its own group: killpg
        proc = Proc(name, popen, log)
        self.procs.append(proc)
        return proc

    def start_ai_worker(self, processes: int = 1) -> Proc:
        proc = self._start(f"grpc-{len(self.procs)}", "ai-worker", "--port",
                           str(self.grpc_port), "--processes", str(processes))
        wait_serving(f"127.0.0.1:{self.grpc_port}", timeout_s=30)
        return proc

    def start_celery_worker(self, *extra: str) -> Proc:
        name = f"celery-{len(self.procs)}"
        proc = self._start(name, "celery-worker", "--pool", "solo", "--concurrency", "1",
                           "--name", f"{name}@%h", *extra)
        self._wait_for(lambda: "ready." in proc.log.read_text(errors="replace"), proc)
        return proc

    def start_beat(self) -> Proc:
        return self._start("beat", "celery-beat", "--schedule",
                           str(self.workdir / "beat-schedule"))

    def start_api(self, workers: int = 1) -> Proc:
        """``president api`` as deployed (gevent workers: a long poll holds no thread)."""
        port = free_port()
        proc = self._start(f"api-{port}", "api", "--port", str(port), "--workers",
                           str(workers))
        url = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=1) as reply:
                    return int(reply.status) == 200
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                return False  # (a timeout: the worker is still loading the app)

        self._wait_for(healthy, proc)
        self.api_urls.append(url)
        return proc

    def _wait_for(self, ready: Callable[[], bool], proc: Proc, timeout_s: float = 40) -> None:
        deadline = time.monotonic() + timeout_s
        while not ready():
            if proc.popen.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{proc.name} did not come up\n{proc.tail()}")
            time.sleep(0.1)

    def logs(self) -> str:
        return "\n".join(p.tail() for p in self.procs)

    def close(self) -> None:
        for proc in reversed(self.procs):
            if proc.popen.poll() is None:
                proc.kill(signal.SIGTERM)
        self._grpc_hold.close()

