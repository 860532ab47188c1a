"""What the entry points call the service layer with: its ports, plugged in by
``bootstrap`` (the one place that knows the adapters)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from services.commands import TableDefaults
from services.ports import Reads, UnitOfWork


@dataclass
class Container:
    uow: Callable[[], UnitOfWork]
    reads: Reads  # reads need no transaction, and no unit of work
    engines: tuple[str, ...]  # AI engine names a game may seat
    ready: Callable[[], bool]  # the database reachable and its migrations current
    defaults: TableDefaults = field(default_factory=TableDefaults)
