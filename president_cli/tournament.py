"""``president tournament``: AI levels against each other, seats rotated
(``workers.ai.tournament``)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from workers.ai import Budget


def _parse_options(pairs: Sequence[str]) -> dict[str, object]:
    """``--option straights=true --option jokers=2``: values are JSON (bare words are strings)."""
    options: dict[str, object] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise ValueError(f"--option wants name=value, not {pair!r}")
        try:
            options[name] = json.loads(raw)
        except json.JSONDecodeError:
            options[name] = raw
    return options


def _parse_budgets(pairs: Sequence[str]) -> dict[str, Budget]:
    """``--budget hard=50ms --budget expert=2000sims``."""
    from workers.ai import Budget

    budgets: dict[str, Budget] = {}
    for pair in pairs:
        level, _, spec = pair.partition("=")
        if spec.endswith("sims"):  # before "ms", which "sims" also ends with
            budgets[level] = Budget(simulations=int(spec[:-4]))
        elif spec.endswith("ms"):
            budgets[level] = Budget(milliseconds=float(spec[:-2]))
        else:
            raise ValueError(f"--budget wants level=<N>ms or level=<N>sims, not {pair!r}")
    return budgets


def _tournament(args: argparse.Namespace) -> int:
    from engine import Rules
    from workers.ai.tournament import Config, format_summary, print_progress, rotations, run

    seats = tuple(s.strip() for s in args.seats.split(","))
    rules = Rules.preset(args.preset, players=len(seats), rounds=1, **_parse_options(args.option))
    per_deal = len(list(rotations(seats)))
    config = Config(rules, seats, deals=-(-args.rounds // per_deal), seed=args.seed,
                    budgets=_parse_budgets(args.budget))
    summary = run(config, processes=args.processes,
                  progress=None if args.quiet else print_progress)
    summary["preset"], summary["rules"] = args.preset, rules.to_dict()
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from workers.ai import LEVELS

    tour = sub.add_parser("tournament", help="AI levels against each other, seats rotated")
    tour.add_argument("--preset", default="cardverse")
    tour.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                      help="rules option over the preset, e.g. straights=true (repeatable)")
    tour.add_argument("--seats", default="hard,normal,normal,normal",
                      help=f"one AI level per seat: {', '.join(LEVELS)}")
    tour.add_argument("--rounds", type=int, default=2000,
                      help="rounds to play (rounded up to whole rotations of a deal)")
    tour.add_argument("--seed", type=int, default=1)
    tour.add_argument("--budget", action="append", default=[], metavar="LEVEL=SPEC",
                      help="e.g. hard=50ms or hard=400sims (default: hard 50ms, expert 500ms)")
    tour.add_argument("--processes", type=int, default=None, help="default: every core")
    tour.add_argument("--quiet", action="store_true", help="no progress on stderr")
    tour.add_argument("--json", action="store_true", help="print JSON")
    tour.set_defaults(func=_tournament)
