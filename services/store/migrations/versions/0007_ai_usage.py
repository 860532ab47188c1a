"""ai usage: the AI thinking time each owner's games used, by the hour (the AI quota)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ai_usage",
        sa.Column("owner", sa.String(32), primary_key=True),
        sa.Column("hour", sa.DateTime(timezone=True), primary_key=True),
        sa.Column("seconds", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ai_usage")
