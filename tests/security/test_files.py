"""The party: another user of the machine the embedded service runs on. What the service
writes to ``PRESIDENT_VAR_DIR`` (the SQLite databases, with every hand and running seed,
the embedded broker's, the machine's secret key) only its own user may read."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterator

import pytest

from president_cli.up import lock
from services.store.db import make_engine, upgrade
from services.store.secrets import machine_key
from workers.turns.embedded import create_tables


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The umask most machines have: files 0644 and folders 0755 unless made otherwise."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_database_its_journals_and_their_folder_are_the_user_s_alone(
        tmp_path: Path) -> None:
    var = tmp_path / "var"
    engine = make_engine(f"sqlite:///{var / 'president.db'}")
    upgrade(engine)
    with engine.connect():  # (a connection open: its write-ahead log is there)
        modes = {p.name: _mode(p) for p in var.iterdir()}
    engine.dispose()
    assert _mode(var) == 0o700
    assert modes.keys() >= {"president.db", "president.db-wal"}
    assert set(modes.values()) == {0o600}, modes


def test_the_embedded_broker_s_database_is_the_user_s_alone(tmp_path: Path) -> None:
    create_tables(f"sqla+sqlite:///{tmp_path / 'var' / 'broker.db'}")
    assert _mode(tmp_path / "var") == 0o700
    assert _mode(tmp_path / "var" / "broker.db") == 0o600


def test_the_machine_s_secret_key_and_the_up_lock_s_folder_are_the_user_s_alone(
        tmp_path: Path) -> None:
    machine_key(tmp_path / "keys" / "secret.key")
    assert _mode(tmp_path / "keys") == 0o700
    assert _mode(tmp_path / "keys" / "secret.key") == 0o600
    held = lock(tmp_path / "up")
    held.close()
    assert _mode(tmp_path / "up") == 0o700
