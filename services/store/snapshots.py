"""Stored snapshots: the layout a game's state is written in, and read back. A snapshot
leaves out what is stored elsewhere once (the action logs, in ``actions``; the rules, in
the game's row), so a move writes about a third of a full state."""

from __future__ import annotations

from typing import Any

from engine import parse_action
from engine.snapshot import state_from_dict, state_to_dict
from engine.state import LogEntry, State
from services.jsoncodec import loads
from services.store.queries import LOG_UP_TO, SNAPSHOT, Run
from services.store.states import Known


def stored(state: State) -> dict[str, Any]:
    """The snapshot as stored: without the action logs and the rules (``decoded`` takes
    them back from where they are)."""
    return state_to_dict(state, logs=False, rules=False)


def json_value(value: Any) -> Any:
    """psycopg decodes JSON columns itself; sqlite3 hands back their text."""
    return loads(value) if isinstance(value, (str, bytes)) else value


def load_stored(run: Run, game_id: str) -> Known | None:
    """The game's stored snapshot, decoded, with its version: no cache involved."""
    rows = run(SNAPSHOT, game_id=game_id)
    if not rows:
        return None
    version, events, snapshot, rules = rows[0]
    return Known(version, events,
                 decoded(run, game_id, version, json_value(snapshot), json_value(rules)))


def decoded(run: Run, game_id: str, version: int, snapshot: dict[str, Any],
            rules: dict[str, Any]) -> State:
    """The stored snapshot (at ``version``) as a state. What it leaves out
    (``stored`` writes it so) comes from elsewhere: the action logs from the
    action log, the rules from the game's row, written once."""
    if "past_logs" in snapshot:  # written before they were left out
        return state_from_dict(snapshot)
    return state_from_dict(snapshot, (
        LogEntry(round_no, seat, parse_action(action)) for round_no, seat, action
        in run(LOG_UP_TO, game_id=game_id, version=version)), rules)
