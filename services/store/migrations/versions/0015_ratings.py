"""Ratings (docs/ratings.md): the rounds of rated games waiting to be rated, written in
the move that ends them; the rounds rated (each once: its key); each player's rating per
pool; and each rated round of each player, with its rating after it (history and
statistics)

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None
# An expand step: new tables, which code before it neither reads nor writes.
oldest_reader = "0009"

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "rating_queue",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        # what rating the round needs, written by its move: no game is read to rate it
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),  # per seat: [owner, player] | null
        sa.Column("result", sa.JSON(), nullable=False),  # ranking, roles, points
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False))
    op.create_table(
        "rated_rounds",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("round", sa.Integer(), primary_key=True),
        sa.Column("pool", sa.String(80), nullable=False),
        sa.Column("rated_at", sa.DateTime(timezone=True), nullable=False))
    op.create_table(
        "ratings",
        sa.Column("pool", sa.String(80), primary_key=True),
        sa.Column("owner", sa.String(32), primary_key=True),  # "": the AI levels'
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False))
    op.create_index("ix_ratings_board", "ratings", ["pool", "owner", "ordinal", "player"],
                    postgresql_include=["rounds", "mu", "sigma"])
    op.create_table(
        "rating_history",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("pool", sa.String(80), nullable=False),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),  # 1: the Président
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("rated_at", sa.DateTime(timezone=True), nullable=False))
    op.create_index("ix_rating_history_player", "rating_history",
                    ["owner", "player", "pool", "id"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_player", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_board", table_name="ratings")
    for table in ("ratings", "rated_rounds", "rating_queue"):
        op.drop_table(table)
