from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("world", "0006_base"),
    ]

    operations = [
        migrations.AddField(
            model_name="agent",
            name="left_step",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="the step it left the town at; empty while it lives there",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="base",
            name="scenarios",
            field=models.JSONField(
                blank=True, default=list, help_text="timed interventions, as in the base file"
            ),
        ),
    ]
