"""The AI levels rated per tenant (docs/ratings.md): an AI seat's rounds rate the level
as the game's owner sees it (``ratings.owner``: the owner's id), no longer in one row
every key moved (``owner`` "").

Moved: each AI level's rated rounds (``rating_history``) go to the owner of the game
they were played in; each tenant's rating of a level is then the one after its latest
round there, its rounds that tenant's count (OpenSkill's updates do not split back per
tenant without rating every round again: this is the nearest derivable). The rounds
queued but not yet rated get their game's owner for their AI seats.

Dropped, not derivable: the AI rounds of a game no longer stored or of no owner (made
in process, with no caller), and their queued AI seats (rated as nobody, as such a
game's AI seats are from now on); the global rows themselves.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-07
"""

from __future__ import annotations

from typing import Callable

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None
# Data only: the code of 0020 still runs on it (its AI levels read no rating until it
# is replaced, and the AI rounds it rates meanwhile go to the global rows, unread).
oldest_reader = "0009"

GLOBAL = ""  # the owner the AI levels' rows had
AI = "ai:%"  # (no key's player id starts so: ``handlers.players``)

queue = sa.table("rating_queue", sa.column("id", sa.BigInteger()),
                 sa.column("game_id", sa.String()), sa.column("players", sa.JSON()))
games = sa.table("games", sa.column("id", sa.String()), sa.column("owner", sa.String()))

HISTORY_TO_OWNERS = """
UPDATE rating_history SET owner = (SELECT g.owner FROM games g
                                   WHERE g.id = rating_history.game_id)
WHERE owner = '' AND player LIKE 'ai:%'
  AND EXISTS (SELECT 1 FROM games g WHERE g.id = rating_history.game_id
              AND g.owner IS NOT NULL)"""

# Each (pool, owner, AI level)'s rating: its latest round's, its rounds counted.
RATINGS_FROM_HISTORY = """
INSERT INTO ratings (pool, owner, player, mu, sigma, ordinal, rounds, updated_at)
SELECT h.pool, h.owner, h.player, h.mu, h.sigma, h.ordinal, c.n, h.rated_at
FROM rating_history h
JOIN (SELECT MAX(id) AS latest, COUNT(*) AS n FROM rating_history
      WHERE player LIKE 'ai:%' {owners} GROUP BY pool, owner, player) c ON h.id = c.latest"""


def upgrade() -> None:
    op.execute(HISTORY_TO_OWNERS)
    op.execute(sa.text("DELETE FROM rating_history WHERE owner = '' AND player LIKE :ai")
               .bindparams(ai=AI))
    op.execute(sa.text("DELETE FROM ratings WHERE player LIKE :ai").bindparams(ai=AI))
    op.execute(RATINGS_FROM_HISTORY.format(owners=""))
    _requeue(lambda owner: owner)


def downgrade() -> None:
    op.execute(sa.text("UPDATE rating_history SET owner = '' WHERE player LIKE :ai")
               .bindparams(ai=AI))
    op.execute(sa.text("DELETE FROM ratings WHERE player LIKE :ai").bindparams(ai=AI))
    op.execute(RATINGS_FROM_HISTORY.format(owners="AND owner = ''"))
    _requeue(lambda owner: GLOBAL)


def _requeue(tenant: Callable[[str | None], str | None]) -> None:
    """Each queued round's AI seats rated as ``tenant(the game's owner)`` (None: as
    nobody)."""
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(queue.c.id, queue.c.players, games.c.owner)
        .select_from(queue.outerjoin(games, games.c.id == queue.c.game_id))).all()
    for id_, players, owner in rows:
        moved = [_moved(ref, tenant(owner)) for ref in players]
        if moved != players:
            connection.execute(queue.update().where(queue.c.id == id_).values(players=moved))


def _moved(ref: list[str] | None, tenant: str | None) -> list[str] | None:
    if ref is None or not ref[1].startswith("ai:"):
        return ref
    return None if tenant is None else [tenant, ref[1]]
