"""The moved tables take the runtime's names (their rows, indexes and constraints kept)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('runtime', '0001_initial'),
        ('agents', '0013_runtime_tables_moved'),
    ]

    operations = [
        migrations.AlterModelTable(name='decision', table=None),
        migrations.AlterModelTable(name='groupdecision', table=None),
        migrations.AlterModelTable(name='stagedcommit', table=None),
    ]
