"""The ``president`` command. Subcommands grow with the project."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence


def _bench_engine(args: argparse.Namespace) -> int:
    from president_cli.bench import bench_engine, format_engine

    report = bench_engine(seconds=args.seconds, seed=args.seed)
    print(json.dumps(report, indent=2) if args.json else format_engine(report))
    return 0


def _rules(args: argparse.Namespace) -> int:
    from engine import PRESETS, describe_options

    if args.preset:
        from engine import Rules

        print(json.dumps(Rules.preset(args.preset).to_dict(), indent=2))
    else:
        print(json.dumps({"presets": {n: r.to_dict() for n, r in PRESETS.items()},
                          "options": describe_options()}, indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="president", description="Président game backend")
    sub = parser.add_subparsers(dest="command", required=True)

    bench = sub.add_parser("bench", help="benchmarks that print figures")
    bench_sub = bench.add_subparsers(dest="target", required=True)
    engine = bench_sub.add_parser("engine", help="random legal rounds per ruleset, one core")
    engine.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per ruleset")
    engine.add_argument("--seed", type=int, default=1)
    engine.add_argument("--json", action="store_true", help="print JSON")
    engine.set_defaults(func=_bench_engine)

    rules = sub.add_parser("rules", help="print the presets and options as JSON")
    rules.add_argument("--preset", help="print one preset's options")
    rules.set_defaults(func=_rules)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ValueError as exc:  # engine errors are ValueErrors with a code
        print(f"president: {getattr(exc, 'code', 'error')}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
