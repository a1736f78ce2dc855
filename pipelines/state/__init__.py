"""The service's own state (watches, alerts): small, transactional, behind a SQLAlchemy URL."""
