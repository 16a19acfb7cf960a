"""How a review starts: the topic query as a synthetic relevant document, given seed documents, or random."""

from __future__ import annotations

from dataclasses import dataclass, field

from tarsim.errors import ConfigError

SEEDING_CHOICES = ("query", "documents", "random")


@dataclass(frozen=True)
class SeedingChoice:
    """`query`: the topic text is a relevant training example (BMI); `documents`: the given docids are
    judged first; `random`: random documents are judged until the first relevant one is found."""

    kind: str = "query"
    docids: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.kind not in SEEDING_CHOICES:
            raise ConfigError(f"seeding {self.kind!r} unknown; accepted: {', '.join(SEEDING_CHOICES)}")
        if self.kind == "documents" and not self.docids:
            raise ConfigError("seeding 'documents' needs at least one seed docid")


def query_text(topic: str, query: str) -> str:
    """The topic's query text for `query` seeding; an empty query cannot seed a review (file collections)."""
    if not query.strip():
        raise ConfigError(f"topic {topic!r} has no query text: use --seeding random or documents")
    return query
