"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
Create Date: ${create_date}
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
${imports if imports else ""}

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
branch_labels = ${repr(branch_labels)}
depends_on = ${repr(depends_on)}
# The oldest code (by its newest migration) that still runs on a database with this one
# applied: the one before it for an expand step (a new table, a nullable column, an
# index), this one for a contract step (a column dropped or renamed, a new NOT NULL).
# Running code older than a migration stays ready only while every migration it does
# not know names it or an older one (docs/storage.md).
oldest_reader = ${repr(up_revision)}


def upgrade() -> None:
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    ${downgrades if downgrades else "pass"}
