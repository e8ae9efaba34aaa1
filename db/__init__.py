"""The store: typed models, engine and session factory, alembic migrations."""
