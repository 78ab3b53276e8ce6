# Towns get an owner (empty: shipped); names are unique per owner and among shipped towns.

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('world', '0008_base_measures'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='town',
            options={'ordering': ['name', 'id']},
        ),
        migrations.AddField(
            model_name='town',
            name='owner',
            field=models.ForeignKey(blank=True, help_text='empty for a shipped town', null=True, on_delete=django.db.models.deletion.CASCADE, related_name='towns', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AlterField(
            model_name='town',
            name='name',
            field=models.SlugField(help_text='e.g. the_ville', max_length=100),
        ),
        migrations.AddConstraint(
            model_name='town',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('name'), models.F('owner'), name='town_unique_name_per_owner'),
        ),
        migrations.AddConstraint(
            model_name='town',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('name'), condition=models.Q(('owner__isnull', True)), name='town_unique_shipped'),
        ),
    ]
