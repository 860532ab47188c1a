"""The ``president`` command: one module per command group, each adding its parser with
``register(subparsers)``; ``bench`` comes from ``benchmarks.cli``."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from benchmarks import cli as bench
from president_cli import (
    ai_worker, api, celery_roles, db, health, keys, rules, tournament, uecda, up,
)
from services.errors import ServiceError

# In the order `president --help` lists them.
COMMANDS = (bench, ai_worker, tournament, api, celery_roles, up, health, db, keys, rules,
            uecda)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="president", description="Président game backend")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, ServiceError) as exc:  # engine and service errors have a code
        print(f"president: {getattr(exc, 'code', 'error')}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
