"""``president uecda``: UECda's game logs and TCP protocol (shared/rules/UECDA.md).

``president uecda replay FILE`` replays every game of a FujiGokoro ``.dat`` log through
the engine and reports, per game, whether every move was legal and the places agree;
``president uecda client`` plays one seat of a UECda server with an AI level.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from workers.ai import LEVELS

MAX_LOG_BYTES = 64 * 1024 * 1024  # a 1,000-game log is about 2 MB


def _replay(args: argparse.Namespace) -> int:
    from workers.uecda.log import read_log
    from workers.uecda.replay import replay_match

    path = Path(args.file)
    if path.stat().st_size > MAX_LOG_BYTES:
        raise ValueError(f"{path}: larger than {MAX_LOG_BYTES} bytes")
    reports = replay_match(read_log(path.read_text(encoding="utf-8", errors="replace")))
    failed = [r for r in reports if not r.ok]
    if args.json:
        print(json.dumps({"games": len(reports), "agree": len(reports) - len(failed),
                          "reports": [r.to_dict() for r in reports]}, indent=2))
    else:
        for report in failed:
            print(f"game {report.game}: {report.problem or 'the exchange disagrees'}")
        print(f"{len(reports) - len(failed)} of {len(reports)} games replayed legally "
              "with the same places")
    return 1 if failed else 0


def _client(args: argparse.Namespace) -> int:
    from workers.uecda.client import play_match

    logging.basicConfig(level=args.loglevel, format="%(asctime)s %(levelname)s %(message)s")
    try:
        summary = play_match(args.host, args.port, args.level, args.name, seed=args.seed)
    except OSError as error:  # refused, unreachable: said in a line, not a traceback
        raise ValueError(f"cannot reach the UECda server at {args.host}:{args.port}: "
                         f"{error}") from None
    print(json.dumps(summary), file=sys.stdout)
    return 0


def _port(text: str) -> int:
    port = int(text)
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"a TCP port is 1 to 65535, not {port}")
    return port


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    uecda = sub.add_parser("uecda", help="UECda game logs and protocol client")
    commands = uecda.add_subparsers(dest="uecda_command", required=True)
    replay = commands.add_parser("replay", help="replay a .dat game log through the engine")
    replay.add_argument("file", help="a FujiGokoro record v1.0 log (UECDA.md §7)")
    replay.add_argument("--json", action="store_true", help="one report per game, as JSON")
    replay.set_defaults(func=_replay)
    client = commands.add_parser("client", help="play one seat of a UECda server")
    client.add_argument("--host", default="127.0.0.1")
    client.add_argument("--port", type=_port, default=42485)
    client.add_argument("--level", default="normal", choices=LEVELS)
    client.add_argument("--name", default="president", help="at most 9 characters are sent")
    client.add_argument("--seed", type=int, default=0, help="the AI level's seed")
    client.add_argument("--loglevel", default="WARNING", help="DEBUG adds tracebacks")
    client.set_defaults(func=_client)
