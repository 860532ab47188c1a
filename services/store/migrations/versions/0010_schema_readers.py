"""schema readers: the oldest code that can still run on this database, so that code
older than its migrations can tell whether it may serve (``/readyz``)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None
oldest_reader = "0009"  # an expand step: a table the code before it never reads


def upgrade() -> None:
    op.create_table("schema_readers",
                    sa.Column("oldest_reader", sa.String(32), primary_key=True))


def downgrade() -> None:
    op.drop_table("schema_readers")
