"""``president health grpc|celery``: probes for containers, exit 0 when healthy."""

from __future__ import annotations

import argparse
import sys


def _health_grpc(args: argparse.Namespace) -> int:
    """Exit 0 when the gRPC worker at the target answers SERVING (a container probe)."""
    import grpc

    from workers.rpc.client import wait_serving

    try:
        wait_serving(args.target, timeout_s=args.timeout)
    except grpc.RpcError as exc:
        print(f"{args.target}: not serving ({exc.code()})", file=sys.stderr)
        return 1
    print(f"{args.target}: SERVING")
    return 0


def _health_celery(args: argparse.Namespace) -> int:
    """Exit 0 when a Celery worker answers a ping (needs a broker with broadcast: Redis)."""
    from president_cli.celery_roles import celery_app

    replies = celery_app().control.ping(timeout=args.timeout)
    print(f"{len(replies)} worker(s) answered")
    return 0 if replies else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    health = sub.add_parser("health", help="probes for containers: exit 0 when healthy")
    health_sub = health.add_subparsers(dest="target_kind", required=True)
    grpc_health = health_sub.add_parser("grpc", help="a gRPC AI worker's health service")
    grpc_health.add_argument("--target", default="127.0.0.1:50051")
    grpc_health.add_argument("--timeout", type=float, default=3.0)
    grpc_health.set_defaults(func=_health_grpc)
    celery_health = health_sub.add_parser("celery", help="ping the Celery workers")
    celery_health.add_argument("--timeout", type=float, default=3.0)
    celery_health.set_defaults(func=_health_celery)
