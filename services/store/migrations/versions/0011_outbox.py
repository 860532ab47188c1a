"""outbox: the turns a move sets in motion, written in the move's own transaction and
handed to the queue by a relay; and when each game's current turn is due, so that the
sweeper sends a turn again only once every copy sent before has expired

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None
# An expand step: code before it reads neither the table nor the column, and hands its
# turns to the queue itself (the code of 0009 as well: 0010 was an expand step too).
oldest_reader = "0009"


def upgrade() -> None:
    op.create_table(
        "outbox",
        # (SQLite numbers an INTEGER PRIMARY KEY itself; BIGINT would not be one)
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                  primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("engine", sa.String(64), nullable=True),
        sa.Column("delay_ms", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False))
    # A nullable column with no default: PostgreSQL adds it without rewriting the table.
    op.add_column("games", sa.Column("turn_due_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("turn_due_at")
    op.drop_table("outbox")
