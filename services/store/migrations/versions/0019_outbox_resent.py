"""outbox.resent: a turn the sweeper wrote again (its first message was lost), which the
relay sends at a priority that new turns never overtake

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None
# An expand step: a column with a default, which code before it neither reads nor writes.
oldest_reader = "0009"


def upgrade() -> None:
    # A constant default: PostgreSQL (11 and later) adds it without rewriting the table.
    op.add_column("outbox", sa.Column("resent", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("resent")
