"""``president keys create|list|revoke``: the operator's client keys (``X-API-Key``)."""

from __future__ import annotations

import argparse
import json

from services.domain import SCOPES


def _create(args: argparse.Namespace) -> int:
    from bootstrap import open_store
    from services.commands import CreateKey
    from services.handlers.keys import create_key

    scopes = tuple(s.strip() for s in args.scopes.split(",") if s.strip())
    key, secret = create_key(CreateKey(args.name, scopes, args.rate, args.max_active_games,
                                       args.ai_seconds_per_hour), open_store(args.url).uow())
    print(json.dumps({"id": key.id, "name": key.name, "scopes": sorted(key.scopes),
                      "key": secret, "note": "shown once: store it now"}, indent=2))
    return 0


def _list(args: argparse.Namespace) -> int:
    from bootstrap import open_store
    from services.handlers.keys import list_keys

    for key in list_keys(open_store(args.url).uow()):
        print(json.dumps({"id": key.id, "name": key.name, "scopes": sorted(key.scopes),
                          "rate": key.rate, "max_active_games": key.max_active_games,
                          "ai_seconds_per_hour": key.ai_seconds_per_hour,
                          "created_at": key.created_at and key.created_at.isoformat(),
                          "revoked": key.revoked}))
    return 0


def _revoke(args: argparse.Namespace) -> int:
    from bootstrap import open_store
    from services.handlers.keys import revoke_key

    revoke_key(args.id, open_store(args.url).uow())
    print(f"revoked {args.id}: it opens nothing from now on (running APIs: within seconds)")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = sub.add_parser("keys", help="client keys: create (shown once), list, revoke")
    keys_sub = keys.add_subparsers(dest="action", required=True)
    create = keys_sub.add_parser("create", help="a new key for a client application")
    create.add_argument("--name", required=True, help="who it is for, e.g. 'mobile backend'")
    create.add_argument("--scopes", required=True,
                        help=f"comma-separated among {', '.join(SCOPES)}")
    create.add_argument("--rate", help="its own rate limit, e.g. 600/minute "
                        "(default: the service's)")
    create.add_argument("--max-active-games", type=int, help="its own quota of games under way")
    create.add_argument("--ai-seconds-per-hour", type=int,
                        help="its own quota of AI thinking time per hour")
    create.set_defaults(func=_create)
    listing = keys_sub.add_parser("list", help="every key, one JSON object a line")
    listing.set_defaults(func=_list)
    revoke = keys_sub.add_parser("revoke", help="a key opens nothing from now on")
    revoke.add_argument("id", help="the key's id (keys list)")
    revoke.set_defaults(func=_revoke)
    for parser in (create, listing, revoke):
        parser.add_argument("--url", help="a SQLAlchemy URL instead of DATABASE_URL")
