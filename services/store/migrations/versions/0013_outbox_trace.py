"""outbox.trace: the W3C traceparent of the move that wrote a turn's message, so that
the trace of a move goes on through the queue (tracing on only; else NULL)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None
# An expand step: a nullable column, which code before it neither reads nor writes.
oldest_reader = "0009"


def upgrade() -> None:
    # A nullable column with no default: PostgreSQL adds it without rewriting the table.
    op.add_column("outbox", sa.Column("trace", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("trace")
