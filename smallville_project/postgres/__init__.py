"""The database engine: Django's PostgreSQL backend, failing fast while the database is down."""
