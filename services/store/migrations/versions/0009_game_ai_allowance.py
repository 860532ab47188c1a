"""game ai allowance: each game keeps its owner's AI thinking time an hour, from when it
was made, so that whoever plays its AI turns can hold it to it

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None
oldest_reader = "0008"  # an expand step: the code before it neither reads nor needs it


def upgrade() -> None:
    # A nullable column with no default: PostgreSQL adds it without rewriting the table.
    op.add_column("games", sa.Column("ai_seconds_per_hour", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("ai_seconds_per_hour")
