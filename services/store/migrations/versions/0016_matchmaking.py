"""Matchmaking tickets (docs/ratings.md#matchmaking): a player waiting for a table, at most
one live ticket a player; once matched, its game, its seat and that seat's token
(encrypted, shown once)

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None
# An expand step: a new table, which code before it neither reads nor writes.
oldest_reader = "0009"

WAITING = sa.text("state = 'waiting'")


def upgrade() -> None:
    op.create_table(
        "tickets",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("pool", sa.String(80), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("fill", sa.String(64), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("sealed_token", sa.Text(), nullable=True))
    op.create_index("ix_tickets_live", "tickets", ["owner", "player"], unique=True,
                    postgresql_where=WAITING, sqlite_where=WAITING)
    op.create_index("ix_tickets_waiting", "tickets", ["created_at"],
                    postgresql_where=WAITING, sqlite_where=WAITING)


def downgrade() -> None:
    op.drop_index("ix_tickets_waiting", table_name="tickets")
    op.drop_index("ix_tickets_live", table_name="tickets")
    op.drop_table("tickets")
