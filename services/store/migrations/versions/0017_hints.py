"""games.hints: whether a game's seats may ask for hints (``hints: false`` at creation,
for rated play)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None
# An expand step: a column with a constant default, which code before it never reads.
oldest_reader = "0009"


def upgrade() -> None:
    # A constant default: PostgreSQL adds it without rewriting the table.
    op.add_column("games", sa.Column("hints", sa.Boolean(), nullable=False,
                                     server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("hints")
