"""Open seats, joining, leaving and rematches (docs/lobby.md): a game's seat changes
(``seated``, which every write is conditional on, as on the version), who may watch it,
the AI that takes over a seat its human leaves, its invite (hashed), its rematch; a
seat's player and display name, whether it is a host's, whether it is connected (and
when it was last heard from); the players a key named

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None
# An expand step: new columns with constant defaults and a new table; code before it
# neither reads nor writes them (its moves do not check ``seated``, and it makes no seat
# changes to check).
oldest_reader = "0009"


def upgrade() -> None:
    # Constant defaults: PostgreSQL adds these without rewriting the table.
    games: list[sa.Column[Any]] = [
        sa.Column("seated", sa.Integer(), nullable=False, server_default="0"),
        # NULL: a game made before, private if a key made it (as it was)
        sa.Column("visibility", sa.String(8), nullable=True),
        sa.Column("takeover", sa.String(64), nullable=False, server_default="normal"),
        sa.Column("invite_hash", sa.String(64), nullable=True),
        sa.Column("rematch_id", sa.String(32), nullable=True)]
    seats: list[sa.Column[Any]] = [
        sa.Column("player_key", sa.String(32), nullable=True),
        sa.Column("player", sa.String(64), nullable=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("host", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("connected", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=True)]
    for table, columns in (("games", games), ("seats", seats)):
        for column in columns:
            op.add_column(table, column)
    op.create_table(
        "players",
        sa.Column("owner", sa.String(32), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False))
    # New columns, all NULL: building these indexes reads the tables but finds nothing to
    # hold; built CONCURRENTLY on PostgreSQL all the same, as no move waits for them.
    with op.get_context().autocommit_block():
        op.create_index("ix_games_invite", "games", ["invite_hash"], unique=True,
                        postgresql_concurrently=True,
                        postgresql_where=sa.text("invite_hash IS NOT NULL"),
                        sqlite_where=sa.text("invite_hash IS NOT NULL"))
        op.create_index("ix_seats_player", "seats", ["player_key", "player"],
                        postgresql_concurrently=True,
                        postgresql_where=sa.text("player IS NOT NULL"),
                        sqlite_where=sa.text("player IS NOT NULL"))
        op.create_index("ix_seats_connected", "seats", ["seen_at"],
                        postgresql_concurrently=True,
                        postgresql_where=sa.text("connected"),
                        sqlite_where=sa.text("connected"))


def downgrade() -> None:
    op.drop_index("ix_seats_connected", table_name="seats")
    op.drop_index("ix_seats_player", table_name="seats")
    op.drop_index("ix_games_invite", table_name="games")
    op.drop_table("players")
    with op.batch_alter_table("seats") as batch:
        for name in ("seen_at", "connected", "host", "name", "player", "player_key"):
            batch.drop_column(name)
    with op.batch_alter_table("games") as batch:
        for name in ("rematch_id", "invite_hash", "takeover", "visibility", "seated"):
            batch.drop_column(name)
