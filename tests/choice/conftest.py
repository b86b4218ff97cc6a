"""Choice tests that run on SQLite and (integration) on a real PostgreSQL server."""

from pg_server import postgres_server, store_url  # noqa: F401 (fixtures for the tests here)
