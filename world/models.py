"""Town, location tree, simulation and its append-only event log."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models.functions import Lower


class Town(models.Model):
    """A tile map in the reference implementation's format, one int per tile per layer.
    Owned by a user (made over REST), or shipped (no owner): public and read-only."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="towns",
        help_text="empty for a shipped town",
    )
    name = models.SlugField(max_length=100, help_text="e.g. the_ville")
    world_name = models.CharField(max_length=200, help_text="root of every address")
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    tile_size = models.PositiveIntegerField(default=32)
    meta_source = models.TextField(help_text="maze_meta_info.json as read")
    collision = ArrayField(models.IntegerField(), help_text="collision_maze, row-major")
    sector_layer = ArrayField(models.IntegerField())
    arena_layer = ArrayField(models.IntegerField())
    game_object_layer = ArrayField(models.IntegerField())
    spawning_layer = ArrayField(models.IntegerField())
    legends = models.JSONField(
        default=dict, help_text="special-block legends: {layer: [[block id, cell, ...], ...]}"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(Lower("name"), "owner", name="town_unique_name_per_owner"),
            models.UniqueConstraint(
                Lower("name"), condition=models.Q(owner__isnull=True), name="town_unique_shipped"
            ),
        ]

    def __str__(self) -> str:
        return self.world_name

    @property
    def shipped(self) -> bool:
        return self.owner_id is None

    def tile_index(self, x: int, y: int) -> int:
        return y * self.width + x

    def tile_xy(self, index: int) -> tuple[int, int]:
        return index % self.width, index // self.width


class LocationKind(models.TextChoices):
    WORLD = "world"
    SECTOR = "sector"
    ARENA = "arena"
    OBJECT = "object"


class Location(models.Model):
    """A node of the place tree world > sector > arena > object, with its tiles."""

    town = models.ForeignKey(Town, on_delete=models.CASCADE, related_name="locations")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    kind = models.CharField(max_length=10, choices=LocationKind.choices)
    name = models.CharField(max_length=200)
    address = models.CharField(
        max_length=600,
        help_text="world:sector:arena:object, e.g. Brindle Green:Kettle Cafe:cafe:piano",
    )
    tiles = ArrayField(models.IntegerField(), default=list, help_text="tile indices y*width+x")

    class Meta:
        ordering = ["town", "address"]
        constraints = [
            models.UniqueConstraint(fields=["town", "address"], name="location_unique_address")
        ]
        indexes = [models.Index(fields=["town", "kind"])]

    def __str__(self) -> str:
        return self.address


class SimulationStatus(models.TextChoices):
    IDLE = "idle"
    RUNNING = "running"
    PAUSED = "paused"
    FAILED = "failed"
    BUDGET_EXHAUSTED = "budget_exhausted"


class PaceAlone(models.TextChoices):
    """What a paced run does while nobody is in the town (no resident a user controls)."""

    KEEP = "keep", "keeps its pace"
    FAST = "fast", "runs as fast as it can"
    PAUSE = "pause", "pauses"


class Share(models.TextChoices):
    """Who besides the owner may join a simulation (runtime/controls/players.py)."""

    OFF = "off", "only the owner"
    INVITED = "invited", "the owner and the users in `guests`"
    ANYONE = "anyone", "every logged-in user"


class Simulation(models.Model):
    """A run of a town and its residents; its state is a projection of its event log."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="simulations"
    )
    name = models.CharField(max_length=200)
    town = models.ForeignKey(Town, on_delete=models.PROTECT, related_name="simulations")
    base = models.CharField(max_length=100, help_text="the base it was created from")
    start_time = models.DateTimeField(help_text="sim time at step 0")
    sec_per_step = models.PositiveIntegerField(default=10)
    step = models.PositiveIntegerField(default=0, help_text="last committed step")
    status = models.CharField(
        max_length=20, choices=SimulationStatus.choices, default=SimulationStatus.IDLE
    )
    status_reason = models.TextField(blank=True, default="")
    seed = models.BigIntegerField(default=0)
    config = models.JSONField(default=dict, blank=True)
    embedding_model = models.CharField(
        max_length=200, blank=True, default="", help_text="set on first embedding; never mixed"
    )
    budget_calls = models.PositiveIntegerField(
        null=True, blank=True, help_text="model calls allowed; empty for no limit"
    )
    budget_tokens = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="prompt + completion tokens allowed; empty for no limit"
    )
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="forks"
    )
    forked_at_step = models.PositiveIntegerField(null=True, blank=True)
    last_seq = models.BigIntegerField(default=0, help_text="seq of the newest event")
    # Run control: the step a run stops at, and where and when it started (for progress).
    target_step = models.PositiveIntegerField(null=True, blank=True)
    run_started_step = models.PositiveIntegerField(null=True, blank=True)
    run_started_at = models.DateTimeField(null=True, blank=True)
    pace = models.FloatField(
        null=True,
        blank=True,
        help_text="sim seconds per wall second the run keeps (runtime/pace.py); "
        "empty: as fast as it can",
    )
    pace_alone = models.CharField(
        max_length=10,
        choices=PaceAlone.choices,
        default=PaceAlone.KEEP,
        help_text="what a paced run does while nobody is in the town",
    )
    pace_from_step = models.PositiveIntegerField(
        null=True, blank=True, help_text="the step the pace's schedule counts from"
    )
    pace_from_at = models.DateTimeField(
        null=True, blank=True, help_text="the wall time the pace's schedule counts from"
    )
    share = models.CharField(
        max_length=10, choices=Share.choices, default=Share.OFF, help_text="who may join"
    )
    guests = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="simulations_shared",
        help_text="the users who may join when it is shared with those invited",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"

    def sim_time_at(self, step: int) -> datetime:
        return self.start_time + timedelta(seconds=step * self.sec_per_step)

    def step_at(self, at: datetime) -> int:
        """The step whose sim time `at` is (the last step at or before it; 0 before the
        start)."""
        return max(0, int((at - self.start_time).total_seconds()) // self.sec_per_step)

    @property
    def sim_time(self) -> datetime:
        return self.sim_time_at(self.step)


class Base(models.Model):
    """What a simulation starts from: a town, a start time, seconds per step and residents
    (`residents` in the base file format, agents.bases.format). Owned by a user, or shipped
    (no owner): public and read-only."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="bases",
        help_text="empty for a shipped base",
    )
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, default="")
    town = models.CharField(max_length=100, help_text="the town's name, e.g. the_ville")
    start_time = models.DateTimeField(help_text="sim time at step 0")
    sec_per_step = models.PositiveIntegerField(default=10)
    residents = models.JSONField(default=list, help_text="the residents, as in the base file")
    measures = models.JSONField(
        default=dict, blank=True, help_text="facts and events evaluations measure by default"
    )
    scenarios = models.JSONField(
        default=list, blank=True, help_text="timed interventions, as in the base file"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(Lower("name"), "owner", name="base_unique_name_per_owner"),
            models.UniqueConstraint(
                Lower("name"), condition=models.Q(owner__isnull=True), name="base_unique_shipped"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def shipped(self) -> bool:
        return self.owner_id is None


class Event(models.Model):
    """One entry of a simulation's append-only log; `seq` is gap-free from 1."""

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="events")
    seq = models.BigIntegerField()
    step = models.PositiveIntegerField()
    sim_time = models.DateTimeField()
    kind = models.CharField(max_length=60)
    agent = models.CharField(max_length=200, blank=True, default="", help_text="agent name")
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["simulation", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["simulation", "seq"], name="event_unique_seq")
        ]
        indexes = [
            models.Index(fields=["simulation", "step"]),
            models.Index(fields=["simulation", "kind"]),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.kind} {self.agent}".strip()


class PresentManager(models.Manager["Agent"]):
    """Residents who live in the town now (not left it)."""

    def get_queryset(self) -> models.QuerySet[Agent]:
        return super().get_queryset().filter(left_step__isnull=True)


class Agent(models.Model):
    """A resident of a simulation: identity, parameters and current state.

    The row is the projection of the agent events (written by `agents.projections`); it
    lives in `world` so that every layer above (the ledger, the memory stream, cognition)
    can key to it without importing the agents layer. Its table keeps its first name.
    """

    simulation = models.ForeignKey(Simulation, on_delete=models.CASCADE, related_name="agents")
    name = models.CharField(max_length=200)
    first_name = models.CharField(max_length=100)
    last_name = models.CharField(max_length=100)
    age = models.PositiveIntegerField(null=True, blank=True)
    innate = models.TextField(blank=True, default="", help_text="innate traits")
    learned = models.TextField(blank=True, default="")
    currently = models.TextField(blank=True, default="")
    lifestyle = models.TextField(blank=True, default="")
    living_area = models.CharField(max_length=600, blank=True, default="")
    daily_plan_requirement = models.TextField(blank=True, default="")
    # Parameters of perception, retrieval and reflection (the persona's values).
    vision_radius = models.PositiveIntegerField(default=8)
    attention_bandwidth = models.PositiveIntegerField(default=8)
    retention = models.PositiveIntegerField(default=8)
    recency_decay = models.FloatField(default=0.995)
    reflection_threshold = models.PositiveIntegerField(default=150)
    # State.
    tile_x = models.IntegerField()
    tile_y = models.IntegerField()
    spatial_memory = models.JSONField(
        default=dict, help_text="places the agent knows: {world: {sector: {arena: [objects]}}}"
    )
    spatial_version = models.PositiveIntegerField(
        default=0, help_text="counts changes of the spatial memory (workers cache it by this)"
    )
    seed_statements = models.JSONField(default=list, help_text="whisper CSV, one per memory")
    user_controlled = models.BooleanField(default=False)
    # What the agent is doing (set by cognition through events).
    destination = models.CharField(max_length=600, blank=True, default="")
    path = models.JSONField(default=list, blank=True, help_text="tiles still to walk")
    action = models.CharField(max_length=400, blank=True, default="")
    busy_until_step = models.PositiveIntegerField(default=0)
    recent_observations = models.JSONField(
        default=list, blank=True, help_text="the last `retention` things perceived"
    )
    action_emoji = models.CharField(max_length=20, blank=True, default="")
    action_address = models.CharField(max_length=600, blank=True, default="")
    action_spo = models.JSONField(
        default=list, blank=True, help_text="(subject, predicate, object) of the action"
    )
    action_start_step = models.PositiveIntegerField(default=0)
    action_object_state = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="the state the action gives its object, set on arrival there",
    )
    chatting_with = models.CharField(max_length=200, blank=True, default="")
    chat_cooldowns = models.JSONField(
        default=dict, blank=True, help_text="partner -> step before which they do not talk again"
    )
    # Cognition's cached reads.
    summary = models.TextField(blank=True, default="", help_text="summary description")
    summary_date = models.DateField(null=True, blank=True)
    plan_date = models.DateField(null=True, blank=True, help_text="sim day of the day plan")
    # Reflection trigger: importance of observations since the last reflection.
    pending_thought = models.TextField(
        blank=True, default="", help_text="an inner-voice statement not yet acted on"
    )
    importance_since_reflection = models.PositiveIntegerField(default=0)
    reflection_due_step = models.PositiveIntegerField(null=True, blank=True)
    left_step = models.PositiveIntegerField(
        null=True, blank=True, help_text="the step it left the town at; empty while it lives there"
    )

    objects = models.Manager()
    present = PresentManager()

    class Meta:
        db_table = "agents_agent"
        ordering = ["simulation", "name"]
        constraints = [
            models.UniqueConstraint(fields=["simulation", "name"], name="agent_unique_name")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def tile(self) -> tuple[int, int]:
        return self.tile_x, self.tile_y
