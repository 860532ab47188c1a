"""``president db upgrade|check``: the game database's migrations and its audit."""

from __future__ import annotations

import argparse
import sys


def _db_upgrade(args: argparse.Namespace) -> int:
    from services.store.db import database_url, make_engine, upgrade

    url = args.url or database_url()
    upgrade(make_engine(url))
    print(f"database at the newest migration: {url.split('@')[-1]}")
    return 0


def _db_check(args: argparse.Namespace) -> int:
    from bootstrap import open_store
    from services.handlers.audit import check_all

    checked, broken = check_all(open_store(args.url).uow)
    for game_id in broken:
        print(f"snapshot differs from its action log: {game_id}", file=sys.stderr)
    print(f"{checked} game(s) rebuilt from seed + action log, {len(broken)} differing")
    return 1 if broken else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    db = sub.add_parser("db", help="the game database")
    db_sub = db.add_subparsers(dest="action", required=True)
    upgrade = db_sub.add_parser("upgrade",
                                help="apply the migrations (DATABASE_URL, default SQLite)")
    upgrade.add_argument("--url", help="a SQLAlchemy URL instead of DATABASE_URL")
    upgrade.set_defaults(func=_db_upgrade)
    check = db_sub.add_parser("check", help="rebuild every game from seed + log, compare")
    check.add_argument("--url", help="a SQLAlchemy URL instead of DATABASE_URL")
    check.set_defaults(func=_db_check)
