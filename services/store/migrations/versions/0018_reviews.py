"""Round reviews (docs/ai.md#reviews): one a round, queued, running under a lease, then
done with every decision and each human seat's points lost

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None
# An expand step: a new table, which code before it neither reads nor writes.
oldest_reader = "0009"

OPEN = sa.text("state IN ('queued', 'running')")


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("round_no", sa.Integer(), primary_key=True),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("owner", sa.String(32), nullable=True),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True))
    op.create_index("ix_reviews_open", "reviews", ["requested_at"],
                    postgresql_where=OPEN, sqlite_where=OPEN)


def downgrade() -> None:
    op.drop_index("ix_reviews_open", table_name="reviews")
    op.drop_table("reviews")
