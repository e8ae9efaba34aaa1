"""papers: aliases, the names a guild's organizers resolved to a paper (or to "none of these")

One new table, so SQLite rebuilds nothing (``0004``'s search triggers stay); unique per guild and
normalised name. Downgrade drops the table and with it only the remembered choices: the papers they
resolved keep their ids and metadata.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "paper_aliases",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("normalized_name", sa.String(300), nullable=False),
        sa.Column(
            "paper_id",
            sa.Integer(),
            sa.ForeignKey("papers.id", ondelete="CASCADE", name="fk_paper_aliases_paper_id_papers"),
            nullable=True,
        ),
        sa.Column("chosen_by", sa.BigInteger(), nullable=True),
        sa.Column("chosen_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_paper_aliases"),
        sa.UniqueConstraint("guild_id", "normalized_name", name="uq_paper_aliases_guild_name"),
    )
    op.create_index("ix_paper_aliases_paper_id", "paper_aliases", ["paper_id"])


def downgrade() -> None:
    op.drop_index("ix_paper_aliases_paper_id", table_name="paper_aliases")
    op.drop_table("paper_aliases")
