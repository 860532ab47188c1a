"""games.seeded: a game whose creator chose its deal (docs/lobby.md#fair-deals); and the
owning key's quotas that matchmade games and rematches are held to (games and tickets
carry them, as games carry the AI time an hour already)

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None
# An expand step: columns with a constant default or none, which code before it never reads.
oldest_reader = "0009"


def upgrade() -> None:
    # A constant default: PostgreSQL adds it without rewriting the table (existing rows
    # read false: whether their seed was chosen was not recorded).
    op.add_column("games", sa.Column("seeded", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))
    op.add_column("games", sa.Column("max_active_games", sa.Integer(), nullable=True))
    op.add_column("tickets", sa.Column("max_active_games", sa.Integer(), nullable=True))
    op.add_column("tickets", sa.Column("ai_seconds_per_hour", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tickets") as batch:
        batch.drop_column("ai_seconds_per_hour")
        batch.drop_column("max_active_games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("max_active_games")
        batch.drop_column("seeded")
