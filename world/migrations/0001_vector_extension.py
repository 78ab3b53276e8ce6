from django.db import migrations
from pgvector.django import VectorExtension


class Migration(migrations.Migration):
    """pgvector must exist before any app stores an embedding."""

    initial = True
    dependencies: list[tuple[str, str]] = []
    operations = [VectorExtension()]
