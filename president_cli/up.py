"""``president up``: the whole system on this machine, on the embedded defaults.

Prepares the folder (SQLite database migrated, embedded broker's tables made), then runs
the package's ``Procfile`` with honcho — the API under gunicorn, a gRPC AI worker, a
Celery worker on every queue and Celery beat — each line of their logs prefixed with its
process's name; Ctrl-C stops them all. A lock file makes a second ``president up`` in the
same folder stop at once with a clear message instead of sharing its files.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from honcho.environ import parse_procfile
from honcho.manager import Manager

from config.files import private_dir
from config.settings import defaulted
from workers.ai import LEVELS

PROCFILE = Path(__file__).with_name("Procfile")


@dataclass(frozen=True)
class Layout:
    host: str
    api_port: int
    ai_port: int
    var_dir: Path

    def environment(self) -> dict[str, str]:
        """The processes' environment: settings given by the caller win; the rest point
        at this folder's SQLite files and this machine's ports."""
        var = self.var_dir.resolve()
        target = f"{self.host}:{self.ai_port}"
        defaults = {
            "DATABASE_URL": f"sqlite:///{var}/president.db",
            "CELERY_BROKER_URL": f"sqla+sqlite:///{var}/broker.db",
            "PRESIDENT_AI_ENGINES": ",".join(f"{level}={target}" for level in LEVELS),
        }
        given = {name: value for name, value in os.environ.items() if value}
        bin_dir = str(Path(sys.executable).parent)  # `president` of this installation
        return {**defaults, **given, "PRESIDENT_HOST": self.host,
                "PRESIDENT_API_PORT": str(self.api_port),
                "PRESIDENT_AI_PORT": str(self.ai_port), "PRESIDENT_VAR_DIR": str(var),
                "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}


class AlreadyRunning(RuntimeError):
    pass


def lock(var_dir: Path) -> IO[str]:
    """Hold ``var/president.lock`` for as long as this process lives (the kernel lets it
    go however the process ends)."""
    private_dir(var_dir)
    handle = (var_dir / "president.lock").open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise AlreadyRunning(f"president up is already running in {var_dir.resolve()} "
                             f"(pid {holder}); stop it first, or use another --var-dir") from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def prepare(env: dict[str, str]) -> None:
    """Migrate the database and make the embedded broker's tables, before any process
    starts (several processes creating them at once would race)."""
    from services.store.db import make_engine, upgrade
    from workers.turns import embedded

    engine = make_engine(env["DATABASE_URL"])
    upgrade(engine)
    engine.dispose()
    if embedded.is_embedded(env["CELERY_BROKER_URL"]):
        embedded.create_tables(env["CELERY_BROKER_URL"])


def up(layout: Layout, out: IO[str] = sys.stdout) -> int:
    try:
        held = lock(layout.var_dir)
    except AlreadyRunning as exc:
        print(f"president up: {exc}", file=sys.stderr)
        return 1
    with held:
        env = layout.environment()
        prepare(env)
        base = f"http://{layout.host}:{layout.api_port}"
        print(f"Président is starting: play at {base}/ · API docs at {base}/docs · "
              f"AI worker on {layout.host}:{layout.ai_port} · Ctrl-C stops everything",
              file=out, flush=True)
        manager = Manager()
        for name, process in parse_procfile(PROCFILE.read_text()).processes.items():
            manager.add_process(name, process, env=env, cwd=os.getcwd())
        # honcho stops everything on SIGINT and SIGTERM; a closed terminal (SIGHUP) must
        # too, or the servers would outlive the lock that guards their folder.
        signal.signal(signal.SIGHUP, lambda *_: manager.terminate())
        manager.loop()
        # 130 and 143: honcho's codes for a stop asked by Ctrl-C or SIGTERM, a success here
        # (make would otherwise end a clean stop with "Error 130").
        return 0 if manager.returncode in (130, 143) else int(manager.returncode or 0)


def layout_from_settings(host: str | None, api_port: int | None, ai_port: int | None,
                         var_dir: str | None) -> Layout:
    return Layout(host or defaulted("PRESIDENT_HOST"),
                  api_port or int(defaulted("PRESIDENT_API_PORT")),
                  ai_port or int(defaulted("PRESIDENT_AI_PORT")),
                  Path(var_dir or defaulted("PRESIDENT_VAR_DIR")))


def _up(args: argparse.Namespace) -> int:
    return up(layout_from_settings(args.host, args.api_port, args.ai_port, args.var_dir))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser("up", help="the whole system on this machine (what `make run` runs)")
    run.add_argument("--host", help="default: PRESIDENT_HOST, else 127.0.0.1")
    run.add_argument("--api-port", type=int, help="default: PRESIDENT_API_PORT, else 8000")
    run.add_argument("--ai-port", type=int, help="default: PRESIDENT_AI_PORT, else 50051")
    run.add_argument("--var-dir", help="SQLite files, beat's schedule, the lock; default: "
                     "PRESIDENT_VAR_DIR, else var")
    run.set_defaults(func=_up)
