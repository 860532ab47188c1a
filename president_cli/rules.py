"""``president rules``: the presets and options as JSON."""

from __future__ import annotations

import argparse
import json


def _rules(args: argparse.Namespace) -> int:
    from engine import PRESETS, describe_options

    if args.preset:
        from engine import Rules

        print(json.dumps(Rules.preset(args.preset).to_dict(), indent=2))
    else:
        print(json.dumps({"presets": {n: r.to_dict() for n, r in PRESETS.items()},
                          "options": describe_options()}, indent=2))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rules = sub.add_parser("rules", help="print the presets and options as JSON")
    rules.add_argument("--preset", help="print one preset's options")
    rules.set_defaults(func=_rules)
