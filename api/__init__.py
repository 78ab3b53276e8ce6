"""The REST API: a package per feature (views, serializers, routes), and beside them what
every feature shares: the error format, lookups, fields, filters, parsers, throttles."""
