"""lighter game indexes: every move rewrites its game's row, and with it every index on
the row's changing columns. The index on status alone repeats the first column of
ix_games_waiting (status, updated_at), which serves the same queries; the turn deadline is
indexed only where there is one (games with a time limit on human turns)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

HAS_DEADLINE = sa.text("turn_deadline IS NOT NULL")


def upgrade() -> None:
    op.drop_index("ix_games_status", "games")
    op.drop_index("ix_games_turn_deadline", "games")
    op.create_index("ix_games_turn_deadline", "games", ["turn_deadline"],
                    postgresql_where=HAS_DEADLINE, sqlite_where=HAS_DEADLINE)


def downgrade() -> None:
    op.drop_index("ix_games_turn_deadline", "games")
    op.create_index("ix_games_turn_deadline", "games", ["turn_deadline"])
    op.create_index("ix_games_status", "games", ["status"])
