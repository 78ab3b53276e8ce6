"""The runtime's tables, moved from the agents app with their rows: this migration takes
the three models into the runtime's state over the tables as they stand (no database
change); the agents app's 0013 drops them from its state, and 0002 renames the tables."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('world', '0009_town_owner'),
        ('agents', '0012_scenario_recipients'),
    ]

    state_operations = [
        migrations.CreateModel(
            name='GroupDecision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('token', models.CharField(max_length=64, unique=True)),
                ('step', models.PositiveIntegerField()),
                ('decisions', models.JSONField(default=list)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('simulation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='group_decisions', to='world.simulation')),
            ],
            options={
                'ordering': ['simulation', 'step', 'id'],
                'db_table': 'agents_groupdecision',
            },
        ),
        migrations.CreateModel(
            name='Decision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('step', models.PositiveIntegerField()),
                ('agent', models.CharField(max_length=200)),
                ('events', models.JSONField(default=list)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('simulation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='decisions', to='world.simulation')),
            ],
            options={
                'ordering': ['simulation', 'step', 'agent'],
                'constraints': [models.UniqueConstraint(fields=('simulation', 'step', 'agent'), name='decision_unique_key')],
                'db_table': 'agents_decision',
            },
        ),
        migrations.CreateModel(
            name='StagedCommit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('step', models.PositiveIntegerField()),
                ('agents', models.JSONField(default=list, help_text='the residents of the group, by name')),
                ('events', models.JSONField(default=list)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('simulation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='staged_commits', to='world.simulation')),
            ],
            options={
                'ordering': ['simulation', 'step', 'id'],
                'indexes': [models.Index(fields=['simulation', 'step'], name='staged_commit_step')],
                'db_table': 'agents_stagedcommit',
            },
        ),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=state_operations),
    ]
