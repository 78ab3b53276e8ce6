"""The memory stream (memories, evidence links) and the embedding cache."""

from __future__ import annotations

from django.db import models
from pgvector.django import HnswIndex, VectorField

EMBEDDING_DIMENSIONS = 384


class MemoryKind(models.TextChoices):
    OBSERVATION = "observation"
    CONVERSATION = "conversation"
    PLAN = "plan"
    REFLECTION = "reflection"
    THOUGHT = "thought", "thought (inner voice)"


class Memory(models.Model):
    """One entry of an agent's memory stream; a projection of the event log.

    `number` counts an agent's memories from 1 and is what events and evidence links
    use, so a rebuild or a fork recreates the same memories with the same identity.
    """

    simulation = models.ForeignKey(
        "world.Simulation", on_delete=models.CASCADE, related_name="memories"
    )
    agent = models.ForeignKey("world.Agent", on_delete=models.CASCADE, related_name="memories")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=20, choices=MemoryKind.choices)
    description = models.TextField()
    subject = models.CharField(max_length=300, blank=True, default="")
    predicate = models.CharField(max_length=300, blank=True, default="")
    object = models.CharField(max_length=300, blank=True, default="")
    created = models.DateTimeField(help_text="sim time")
    last_accessed = models.DateTimeField(help_text="sim time")
    importance = models.PositiveSmallIntegerField()
    rating_due = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="the step at which the model's rating replaces the provisional importance "
        "(a rule's estimate); empty once rated",
    )
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    depth = models.PositiveSmallIntegerField(
        default=0, help_text="reflection tree depth: 0 for non-reflections"
    )
    source = models.JSONField(
        default=dict,
        blank=True,
        help_text='where it came from: {"from": who told it, "conversation": its initiator, '
        '"step": when}',
    )
    evidence = models.ManyToManyField(
        "self", through="Evidence", symmetrical=False, related_name="cited_by", blank=True
    )

    class Meta:
        verbose_name_plural = "memories"
        ordering = ["agent", "number"]
        constraints = [
            models.UniqueConstraint(fields=["agent", "number"], name="memory_unique_number"),
            models.CheckConstraint(
                condition=models.Q(importance__gte=1) & models.Q(importance__lte=10),
                name="memory_importance_1_10",
            ),
        ]
        indexes = [
            models.Index(fields=["agent", "kind"]),
            models.Index(fields=["agent", "created"]),
            models.Index(fields=["agent", "last_accessed"]),
            # Scale-mode retrieval walks each importance level by last access.
            models.Index(fields=["agent", "importance", "last_accessed"]),
            models.Index(fields=["simulation", "agent"]),
            models.Index(
                fields=["agent", "rating_due"],
                condition=models.Q(rating_due__isnull=False),
                name="memory_unrated",
            ),
            HnswIndex(
                name="memory_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return self.description[:80]


class Evidence(models.Model):
    """An ordered link from a reflection to a memory it cites."""

    reflection = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="evidence_links")
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["reflection", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["reflection", "position"], name="evidence_unique_position"
            )
        ]

    def __str__(self) -> str:
        return f"{self.reflection_id} cites {self.memory_id}"


class EmbeddingCache(models.Model):
    """Embeddings by model, prefix kind (e5's query/passage) and text hash."""

    model = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, help_text="query or passage")
    text_hash = models.CharField(max_length=64, help_text="sha256 of the text")
    embedding = VectorField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["model", "kind", "text_hash"], name="embedding_cache_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.model} {self.kind} {self.text_hash[:12]}"
