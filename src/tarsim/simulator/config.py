"""The configuration of one simulated review: every choice that changes what the ledger records."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from tarsim.effort_models import TimeModel, make_effort_model
from tarsim.errors import ConfigError
from tarsim.features import FeatureSettings
from tarsim.learners import DEFAULT_LAMBDA, LEARNERS
from tarsim.policies import SeedingChoice, make_batch_schedule, make_selection_policy

FEEDBACK_UNITS = ("document", "sentence")

STRATEGIES = {
    "document/document": ("document", "document"),  # BMI
    "sentence/document": ("sentence", "document"),  # BMI paragraph mode
    "sentence/sentence": ("sentence", "sentence"),
    "document/sentence": ("document", "sentence"),
}
"""Feedback strategies, named shown/trained."""

_NUMBER = r"\d+(?:\.\d+)?"
_BUDGET = re.compile(rf"^(?:(?P<a>{_NUMBER})?R(?:\+(?P<b1>{_NUMBER}))?|(?P<b2>{_NUMBER}))$")


@dataclass(frozen=True)
class Budget:
    """An effort budget aR + b in the units of an effort model (R: the topic's relevant count)."""

    a: float = 0.0
    b: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Budget:
        """Parse `2R+100`, `4R`, `1000` or `R+0`."""
        match = _BUDGET.match(text.replace(" ", "").replace("*", "").upper())
        if not match:
            raise ConfigError(f"budget {text!r}: expected aR+b, e.g. 2R+100, 4R or 1000")
        if match.group("b2") is not None:
            return cls(0.0, float(match.group("b2")))
        a = float(match.group("a")) if match.group("a") else 1.0
        return cls(a, float(match.group("b1") or 0.0))

    def effort(self, relevant: int) -> float:
        return self.a * relevant + self.b

    def __str__(self) -> str:
        return f"{self.a:g}R+{self.b:g}"


@dataclass(frozen=True)
class ReviewConfig:
    """How one review is simulated. Defaults reproduce BMI with one reviewer and no reviewer error."""

    feedback: str = "document"
    train_on: str = "document"
    rank_by: str | None = None
    policy: str = "relevance"
    batch: str = "bmi"
    seeding: SeedingChoice = field(default_factory=SeedingChoice)
    presumed_nonrelevant: int = 100
    sentence_oracle: str = "inherit"
    oracle_threshold: float = 0.0
    false_negative_rate: float = 0.0
    false_positive_rate: float = 0.0
    reviewers: int = 1
    async_retrain: bool = False
    retrain_seconds: float = 0.0
    time_model: TimeModel = field(default_factory=TimeModel)
    until: str = "all-relevant"
    max_effort: str | None = None
    max_effort_model: str = "judge"
    lambda_: float = DEFAULT_LAMBDA
    learner: str = "bmi"
    features: FeatureSettings = field(default_factory=FeatureSettings)
    stopping: tuple[str, ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        if self.feedback not in FEEDBACK_UNITS:
            raise ConfigError(f"feedback {self.feedback!r} unknown; accepted: {', '.join(FEEDBACK_UNITS)}")
        if self.train_on not in FEEDBACK_UNITS:
            raise ConfigError(f"train_on {self.train_on!r} unknown; accepted: {', '.join(FEEDBACK_UNITS)}")
        if self.rank_by is not None and self.rank_by not in FEEDBACK_UNITS:
            raise ConfigError(f"rank_by {self.rank_by!r} unknown; accepted: {', '.join(FEEDBACK_UNITS)}")
        make_selection_policy(self.policy)
        make_batch_schedule(self.batch)
        make_effort_model(self.max_effort_model)
        if self.max_effort is not None and not Budget.parse(self.max_effort).effort(1) > 0:
            raise ConfigError(f"max_effort {self.max_effort!r} must be a positive effort")
        if self.until not in ("all-relevant", "exhausted"):
            raise ConfigError(f"until {self.until!r} unknown; accepted: all-relevant, exhausted")
        if self.presumed_nonrelevant < 0:
            raise ConfigError(f"presumed_nonrelevant must be >= 0, got {self.presumed_nonrelevant}")
        if self.reviewers < 1:
            raise ConfigError(f"reviewers must be >= 1, got {self.reviewers}")
        if self.retrain_seconds < 0:
            raise ConfigError(f"retrain_seconds must be >= 0, got {self.retrain_seconds}")
        if not self.lambda_ > 0:
            raise ConfigError(f"lambda_ (the learner's regularisation) must be > 0, got {self.lambda_}")
        if self.learner not in LEARNERS:
            raise ConfigError(f"learner {self.learner!r} unknown; accepted: {', '.join(LEARNERS)}")
        if self.learner != "bmi" and self.lambda_ != DEFAULT_LAMBDA:
            raise ConfigError(f"lambda_ is the bmi learner's regularisation; learner {self.learner!r} has none")
        if self.seed < 0:
            raise ConfigError(f"seed must be >= 0, got {self.seed}")
        if self.stopping:
            from tarsim.stopping import parse_stopping_rule  # stopping rules are evaluated from ledgers

            for spec in self.stopping:
                parse_stopping_rule(spec)
        for name in ("false_negative_rate", "false_positive_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"{name} must be in [0, 1], got {getattr(self, name)}")

    @property
    def strategy(self) -> str:
        """shown/trained, e.g. `document/document` (BMI) or `sentence/document` (BMI paragraph mode)."""
        return f"{self.feedback}/{self.train_on}"

    @property
    def ranking_unit(self) -> str:
        """Documents are ranked by their own score, or by their best sentence's (the default when shown sentences)."""
        return self.rank_by or self.feedback

    def to_dict(self) -> dict:
        """A JSON-ready dict (recorded in every ledger header)."""
        record = asdict(self)
        record["seeding"] = {"kind": self.seeding.kind, "docids": list(self.seeding.docids)}
        record["stopping"] = list(self.stopping)
        record["strategy"] = self.strategy
        return record

    @classmethod
    def from_dict(cls, record: dict) -> ReviewConfig:
        """Rebuild a configuration from a ledger header's `config`."""
        values = {k: v for k, v in record.items() if k != "strategy"}
        values["seeding"] = SeedingChoice(values["seeding"]["kind"], tuple(values["seeding"]["docids"]))
        values["time_model"] = TimeModel(**values["time_model"])
        values["features"] = FeatureSettings(**values["features"])
        values["stopping"] = tuple(values.get("stopping", ()))
        return cls(**values)


ADDED_CONFIG_FIELDS = {"learner": "bmi"}
"""Configuration fields added after ledgers were first written, with the value that older ledgers imply."""


def normalise_config(record: dict) -> dict:
    """A ledger header's `config` with fields it predates filled in, so that comparing configurations (resume,
    one configuration per output directory, grouping in comparisons) treats an older ledger as what it was."""
    return {**ADDED_CONFIG_FIELDS, **record} if record else record


def normalise_header(header: dict) -> dict:
    """A ledger header with its `config` normalised (see normalise_config)."""
    return {**header, "config": normalise_config(header["config"])} if "config" in header else header


def strategy_config(name: str, **overrides) -> ReviewConfig:
    """A ReviewConfig for a named shown/trained strategy."""
    if name not in STRATEGIES:
        raise ConfigError(f"strategy {name!r} unknown; accepted: {', '.join(STRATEGIES)}")
    feedback, train_on = STRATEGIES[name]
    return ReviewConfig(feedback=feedback, train_on=train_on, **overrides)
