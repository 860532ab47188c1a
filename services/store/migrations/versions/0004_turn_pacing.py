"""turn scheduling: per-game pace and human turn timeout, whose turn it is, when a human's
time runs out, and indexes for the sweeper that finds games waiting too long

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
        batch.add_column(sa.Column("turn_deadline", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_games_waiting", "games", ["status", "updated_at"])
    op.create_index("ix_games_turn_deadline", "games", ["turn_deadline"])
    # Games already under way: whose turn it is comes from their snapshot, or the sweeper
    # would never see the ones left waiting on an AI.
    to_act = ("CAST(snapshot->>'to_act' AS INTEGER)" if op.get_bind().dialect.name ==
              "postgresql" else "CAST(json_extract(snapshot, '$.to_act') AS INTEGER)")
    op.execute(f"UPDATE games SET to_act = {to_act}")


def downgrade() -> None:
    op.drop_index("ix_games_turn_deadline", "games")
    op.drop_index("ix_games_waiting", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("turn_deadline")
        batch.drop_column("to_act")
        batch.drop_column("turn_timeout_ms")
        batch.drop_column("pace_ms")
