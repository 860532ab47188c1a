"""client keys: the api_keys table (a secret's SHA-256, its scopes and limits), and the
key each game belongs to, indexed for listing a key's games newest first

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("scopes", sa.JSON(), nullable=False),
        sa.Column("rate", sa.String(64), nullable=True),
        sa.Column("max_active_games", sa.Integer(), nullable=True),
        sa.Column("ai_seconds_per_hour", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    # A nullable column with no default: PostgreSQL adds it without rewriting the table.
    op.add_column("games", sa.Column("owner", sa.String(32), nullable=True))
    op.create_index("ix_games_owner", "games", ["owner", "created_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_games_owner", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("owner")
    op.drop_table("api_keys")
