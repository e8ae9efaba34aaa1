"""papers: ids stored as their sources write them (old-style arXiv ids without a subject class, DOIs in lower case)

arXiv writes ``math.GT/0309136`` as ``math/0309136`` (the subject class is not part of the id), and DOIs are
case-insensitive, kept lower-case; rows stored before either rule are rewritten (key, id and link), so a
suggestion by either form finds the paper. A row whose new key another paper of its guild already has keeps
its old one. Only changes values; downgrade keeps them (the old forms named the same papers).

Revision ID: 0028
Revises: 0026
Create Date: 2026-12-04
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SUBJECT_CLASS = re.compile(r"^([a-z][a-z-]*)\.[A-Za-z]{2}/(\d{7})$")
papers = sa.table(
    "papers",
    sa.column("id", sa.Integer),
    sa.column("guild_id", sa.BigInteger),
    sa.column("key", sa.String),
    sa.column("url", sa.String),
    sa.column("arxiv_id", sa.String),
    sa.column("doi", sa.String),
)


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(papers.c.id, papers.c.guild_id, papers.c.key, papers.c.arxiv_id, papers.c.doi).where(
            sa.or_(papers.c.arxiv_id.like("%.%/%"), papers.c.doi != sa.func.lower(papers.c.doi))
        )
    ).all()
    for paper_id, guild_id, key, arxiv_id, doi in rows:
        values: dict[str, str] = {}
        if doi and doi != doi.lower():
            values["doi"] = doi.lower()
            if key == f"doi:{doi}":
                values["key"] = f"doi:{doi.lower()}"
        if arxiv_id and (found := _SUBJECT_CLASS.match(arxiv_id)):
            canonical = f"{found[1]}/{found[2]}"
            values["arxiv_id"] = canonical
            if key == f"arxiv:{arxiv_id}":
                values |= {"key": f"arxiv:{canonical}", "url": f"https://arxiv.org/abs/{canonical}"}
        if "key" in values:
            taken = bind.execute(
                sa.select(papers.c.id).where(papers.c.guild_id == guild_id, papers.c.key == values["key"])
            ).first()
            if taken is not None:
                continue  # the guild has the paper under its new key already: this row keeps its old one
        bind.execute(sa.update(papers).where(papers.c.id == paper_id).values(**values))


def downgrade() -> None:
    pass  # the values stay: the old forms named the same papers
