"""turn scheduling: per-game pace and human turn timeout, whose turn it is, and an index
for the sweeper that finds games waiting too long

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:  # batch: SQLite cannot ALTER much
        batch.add_column(sa.Column("pace_ms", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("turn_timeout_ms", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("to_act", sa.Integer(), nullable=False, server_default="-1"))
    op.create_index("ix_games_waiting", "games", ["status", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_games_waiting", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("to_act")
        batch.drop_column("turn_timeout_ms")
        batch.drop_column("pace_ms")
