"""A PostgreSQL and a Redis server of the caller's own, on free ports, to restart and to
freeze at will (the chaos benchmark and tests): the machine's shared servers must never
be hurt by them.

``restart()`` stops a server the hard way (PostgreSQL: fast shutdown, every session
dropped; Redis: ``SHUTDOWN NOSAVE``, every queue lost) and starts it again on the same
port. ``frozen()`` stops every process of the server (SIGSTOP) for a while: what clients
see of a network partition, connections that neither answer nor close.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from benchmarks.ports import free_port

POSTGRES_USER = "postgres"  # PostgreSQL refuses to run as root: then it runs as this user


def _run_as(user: str | None) -> list[str]:
    return ["runuser", "-u", user, "--"] if user else []


def processes(parent: int | None = None, group: int | None = None) -> list[int]:
    """The processes whose parent is ``parent`` (PostgreSQL's backends), or whose process
    group is ``group`` (a server and the workers it started), from /proc (Linux)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # (gone meanwhile)
            if int(fields[1]) == parent or int(fields[2]) == group:
                found.append(int(entry.name))
    return sorted(found)


def alive(pid: int) -> bool:
    """Running, or stopped but not yet reaped by its parent (a zombie is gone), from
    /proc (Linux)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def _signal_all(pids: list[int], sig: int) -> None:
    """Signal each process still there: a backend listed a moment before may have ended
    (a session that closed), and was reaped before it could be stopped."""
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def cpu_s(leader: int, members: list[int]) -> float:
    """CPU seconds (user + system) used by ``members`` so far, and by the children
    ``leader`` has reaped (PostgreSQL's backends that ended, a pool's recycled workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in {leader, *members}:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # (gone meanwhile)
        total += int(fields[11]) + int(fields[12])  # utime, stime
        if pid == leader:
            total += int(fields[13]) + int(fields[14])  # cutime, cstime
    return total / tick


class PrivatePostgres:
    def __init__(self) -> None:
        # A folder of its own where its user can reach it (pytest's, under a root-only
        # folder, would not do), the log beside the data; ``close`` removes both.
        self.home = Path(tempfile.mkdtemp(prefix="president-pg-"))
        self.data = self.home / "data"
        self.data.mkdir()
        self.port = free_port()
        self.user = POSTGRES_USER if os.geteuid() == 0 else None
        if self.user:
            for path in (self.home, self.data):
                shutil.chown(path, self.user, self.user)
        subprocess.run([*_run_as(self.user), "initdb", "-D", str(self.data), "-U", "postgres",
                        "--auth=trust", "--no-sync"], check=True, capture_output=True)
        self.start()

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *args: str) -> None:
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c max_connections=200 -c unix_socket_directories=")
        subprocess.run([*_run_as(self.user), "pg_ctl", "-D", str(self.data), "-w", "-t", "30",
                        "-l", str(self.home / "postgres.log"), "-o", options, *args],
                       check=True, capture_output=True)

    def start(self) -> None:
        self._ctl("start")

    def restart(self) -> None:
        """Every session dropped, then the server back on the same port."""
        self._ctl("restart", "-m", "fast")

    def _postmaster(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def cpu_s(self) -> float:
        postmaster = self._postmaster()
        return cpu_s(postmaster, processes(parent=postmaster))

    @contextmanager
    def frozen(self) -> Iterator[None]:
        pids = [self._postmaster(), *processes(parent=self._postmaster())]
        _signal_all(pids, signal.SIGSTOP)
        try:
            yield
        finally:
            _signal_all(pids, signal.SIGCONT)

    def close(self) -> None:
        try:
            self._ctl("stop", "-m", "immediate")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.home, ignore_errors=True)


class PrivateRedis:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = (self.workdir / "redis.log").open("ab")
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
        deadline = time.monotonic() + 10
        while b"PONG" not in self._cli("PING"):
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not come up")
            time.sleep(0.05)

    def _cli(self, *command: str) -> bytes:
        return subprocess.run(["redis-cli", "-p", str(self.port), *command],
                              capture_output=True).stdout

    def restart(self) -> None:
        """Every queue lost (nothing is kept on disk), then the server back."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(10)
        self.start()

    def cpu_s(self) -> float:
        assert self.process is not None
        return cpu_s(self.process.pid, [])

    @contextmanager
    def frozen(self) -> Iterator[None]:
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)
        try:
            yield
        finally:
            self.process.send_signal(signal.SIGCONT)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def can_run_postgres() -> bool:
    """initdb and pg_ctl are installed, and (as root) there is a user to run them as."""
    if shutil.which("initdb") is None or shutil.which("pg_ctl") is None:
        return False
    if os.geteuid() != 0:
        return True
    try:
        pwd.getpwnam(POSTGRES_USER)
    except KeyError:
        return False
    return shutil.which("runuser") is not None
