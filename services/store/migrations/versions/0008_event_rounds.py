"""event rounds: each event says the round it belongs to, so that a round's replay reads
that round's events only. Nullable, with no default: PostgreSQL adds it without
rewriting the table; events written before it have none, and their replays read the
game's events as before

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("events", sa.Column("round", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("round")
