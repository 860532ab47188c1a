"""``president ai-worker``: the AI levels over gRPC (``workers.rpc.server``)."""

from __future__ import annotations

import argparse


def _ai_worker(args: argparse.Namespace) -> int:
    from workers.rpc.supervisor import run

    return run(args.host, args.port, args.processes)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from config.settings import defaulted

    worker = sub.add_parser("ai-worker", help="serve the AI levels over gRPC")
    worker.add_argument("--host", default="127.0.0.1")
    worker.add_argument("--port", type=int, default=50051, help="0: any free port")
    worker.add_argument("--processes", type=int,
                        default=int(defaulted("PRESIDENT_AI_WORKER_PROCESSES")),
                        help="server processes sharing the port (SO_REUSEPORT); default: "
                        "PRESIDENT_AI_WORKER_PROCESSES, else 1")
    worker.set_defaults(func=_ai_worker)
