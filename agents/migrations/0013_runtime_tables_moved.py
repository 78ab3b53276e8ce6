"""Decision, GroupDecision and StagedCommit belong to the runtime now (runtime 0001 took
them into its state over the same tables): dropped from this app's state only."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('agents', '0012_scenario_recipients'),
        ('runtime', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(model_name='groupdecision', name='simulation'),
                migrations.RemoveField(model_name='stagedcommit', name='simulation'),
                migrations.DeleteModel(name='Decision'),
                migrations.DeleteModel(name='GroupDecision'),
                migrations.DeleteModel(name='StagedCommit'),
            ]
        ),
    ]
