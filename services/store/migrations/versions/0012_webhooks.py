"""webhooks: the endpoints a client key registers (the signing secret encrypted), the
messages its games' moves write for them in their own transaction (an outbox of its
own: the relay hands a message over when it is due, again after a failed attempt), and
each attempt's outcome

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None
# An expand step: new tables only, which code before it never reads (nor did 0011's
# and 0010's readers: the code of 0009 still runs).
oldest_reader = "0009"

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")  # (SQLite numbers it itself)
PENDING = sa.text("state = 'pending'")


def upgrade() -> None:
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("event_types", sa.JSON(), nullable=False),
        sa.Column("description", sa.String(200), nullable=True),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", sa.String(300), nullable=True),
        sa.Column("failing_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False))
    op.create_index("ix_webhook_endpoints_owner", "webhook_endpoints", ["owner"])
    op.create_table(
        "webhook_messages",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("webhook_id", sa.String(40), nullable=False, unique=True),
        sa.Column("endpoint_id", sa.String(32),
                  sa.ForeignKey("webhook_endpoints.id", ondelete="CASCADE"), nullable=False),
        sa.Column("type", sa.String(40), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("hand", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False))
    op.create_index("ix_webhook_messages_due", "webhook_messages", ["due_at"],
                    postgresql_where=PENDING, sqlite_where=PENDING)
    op.create_index("ix_webhook_messages_endpoint", "webhook_messages", ["endpoint_id", "id"])
    op.create_index("ix_webhook_messages_created", "webhook_messages", ["created_at"])
    op.create_table(
        "webhook_attempts",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("message_id", BIG_ID,
                  sa.ForeignKey("webhook_messages.id", ondelete="CASCADE"), nullable=False),
        sa.Column("endpoint_id", sa.String(32), nullable=False),
        sa.Column("attempted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("latency_ms", sa.Integer(), nullable=False),
        sa.Column("error", sa.String(300), nullable=True))
    op.create_index("ix_webhook_attempts_endpoint", "webhook_attempts", ["endpoint_id", "id"])
    op.create_index("ix_webhook_attempts_message", "webhook_attempts", ["message_id"])


def downgrade() -> None:
    op.drop_table("webhook_attempts")
    op.drop_table("webhook_messages")
    op.drop_table("webhook_endpoints")
