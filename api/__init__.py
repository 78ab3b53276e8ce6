"""The REST API: serializers, views, permissions and the error format."""
