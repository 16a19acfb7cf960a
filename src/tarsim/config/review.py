"""The configuration of one simulated review: every choice that changes what the ledger records.

Each field is declared once (tarsim.components.schema): its public name, type, range or choices, default and
help. The checks below, the `tarsim simulate` options and a sweep's [review] keys are all derived from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from tarsim.components import Param, kind
from tarsim.components.schema import check_settings, declared, setting
from tarsim.effort_models import Budget, TimeModel
from tarsim.errors import ConfigError
from tarsim.features.matrices import FeatureSettings
from tarsim.learners.named import DEFAULT_LAMBDA, learner_uses_lambda
from tarsim.policies import SEEDING_CHOICES, SeedingChoice
from tarsim.policies.seeding import DEFAULT_PRIORS

FEEDBACK_UNITS = ("document", "sentence")

STRATEGIES = {
    "document/document": ("document", "document"),  # BMI
    "sentence/document": ("sentence", "document"),  # BMI paragraph mode
    "sentence/sentence": ("sentence", "sentence"),
    "document/sentence": ("document", "sentence"),
}
"""Feedback strategies, named shown/trained."""

MAX_SEED = 2**32 - 1
"""numpy's legacy and scikit-learn's random_state take 32-bit seeds."""

__all__ = ["STRATEGIES", "Budget", "ReviewConfig", "normalise_config", "normalise_header", "strategy_config"]


def _positive_budget(text: str) -> str:
    """max_effort: an aR+b budget that allows some effort."""
    if not Budget.parse(text).effort(1) > 0:
        raise ConfigError(f"max_effort {text!r} must be a positive effort")
    return text


def _unit(name: str, default: str | None, help_text: str, flag: str, toml: bool) -> Any:
    """The declaration of a document/sentence setting (a dataclasses.Field)."""
    return setting(Param(name, str, default, help_text, choices=FEEDBACK_UNITS), flag=flag, toml=toml)


@dataclass(frozen=True)
class ReviewConfig:
    """How one review is simulated. Defaults reproduce BMI with one reviewer and no reviewer error."""

    feedback: str = _unit("feedback", "document", "what the reviewer is shown", "--feedback", False)
    train_on: str = _unit("train_on", "document", "what the learner trains on", "--train-on", False)
    rank_by: str | None = _unit(
        "rank_by", None, "rank documents by their own or their best sentence's score (default: as shown)",
        "--rank-by", True,
    )  # fmt: skip
    policy: str = setting(
        Param("policy", str, "relevance", "which unjudged documents a batch holds"), component="policy",
        flag="--policy", toml=False, metavar="SPEC",
    )  # fmt: skip
    batch: str = setting(
        Param("batch", str, "bmi", "batch sizes"), component="batch", flag="--batch", metavar="SPEC",
        numbers_as_text=True,
    )  # fmt: skip
    seeding: SeedingChoice = setting(  # noqa: RUF009 - a dataclasses.Field
        Param("seeding", str, "query", "how the review starts", choices=SEEDING_CHOICES),
        factory=SeedingChoice, nested=SeedingChoice, flag="--seeding",
    )  # fmt: skip
    n_prior_included: int = setting(
        Param("n_prior_included", int, 0, "relevant records drawn at random as priors, judged first", low=0),
        flag="--n-prior-included", metavar="N",
    )  # fmt: skip
    n_prior_excluded: int = setting(
        Param("n_prior_excluded", int, 0, "non-relevant records drawn at random as priors, judged first", low=0),
        flag="--n-prior-excluded", metavar="N",
    )  # fmt: skip
    prior_idx: tuple[int, ...] = setting(
        Param("prior_idx", int, None, "records judged first as priors, by row number from 0, in this order", low=0),
        factory=tuple, flag="--prior-idx", metavar="I", many=True,
    )  # fmt: skip
    prior_seed: int | None = setting(
        Param("prior_seed", int, None, "seed of the random priors' draw (default: --seed)", low=0, high=MAX_SEED),
        flag="--prior-seed", metavar="S", toml=False,
    )  # fmt: skip
    presumed_nonrelevant: int = setting(
        Param("presumed_nonrelevant", int, 100, "unjudged documents added as non-relevant to each training round",
              low=0),
        flag="--presumed-nonrelevant", metavar="N",
    )  # fmt: skip
    presumed_with_replacement: bool = setting(
        Param("presumed_with_replacement", bool, False, "draw the presumed non-relevant with replacement (HiCAL)"),
        flag="--presumed-with-replacement",
    )  # fmt: skip
    sentence_oracle: str = setting(
        Param("sentence_oracle", str, "classifier", "which sentences are relevant"), component="oracle",
        flag="--sentence-oracle", metavar="inherit|classifier|FILE",
    )  # fmt: skip
    oracle_threshold: float = setting(
        Param("oracle_threshold", float, 0.0, "the classifier oracle's score threshold"),
        flag="--oracle-threshold", metavar="T",
    )  # fmt: skip
    false_negative_rate: float = setting(
        Param("false_negative_rate", float, 0.0, "chance the reviewer labels a relevant item non-relevant", 0, 1),
        flag="--false-negative-rate", metavar="P",
    )  # fmt: skip
    false_positive_rate: float = setting(
        Param("false_positive_rate", float, 0.0, "chance the reviewer labels a non-relevant item relevant", 0, 1),
        flag="--false-positive-rate", metavar="P",
    )  # fmt: skip
    reviewers: int = setting(
        Param("reviewers", int, 1, "reviewers judging in parallel", low=1), flag="--reviewers", metavar="N"
    )
    async_retrain: bool = setting(
        Param("async_retrain", bool, False, "reviewers keep judging while the learner retrains"),
        flag="--async-retrain",
    )  # fmt: skip
    retrain_seconds: float = setting(
        Param("retrain_seconds", float, 0.0, "simulated seconds a retraining takes", low=0),
        flag="--retrain-seconds", metavar="S",
    )  # fmt: skip
    time_model: TimeModel = setting(  # noqa: RUF009 - a dataclasses.Field
        Param("time_model", str, None, "seconds per judgment (document_seconds, sentence_seconds, seconds_per_word)"),
        factory=TimeModel, nested=TimeModel,
    )  # fmt: skip
    until: str = setting(
        Param("until", str, "all-relevant", "when the review ends", choices=("all-relevant", "exhausted")),
        flag="--until",
    )  # fmt: skip
    max_effort: str | None = setting(
        Param("max_effort", str, None, "stop at this effort, in the first --effort model's units",
              parse=_positive_budget, accepted_text="aR+b, e.g. 2R+100, 4R or 1000"),
        flag="--max-effort", metavar="aR+b", numbers_as_text=True,
    )  # fmt: skip
    max_effort_model: str = setting(
        Param("max_effort_model", str, "judge", "the effort model max_effort is counted in"), component="effort"
    )
    lambda_: float = setting(
        Param("lambda", float, DEFAULT_LAMBDA, "the bmi learner's regularisation", low=0, low_open=True),
        flag="--lambda", metavar="L",
    )  # fmt: skip
    learner: str = setting(
        Param("learner", str, "bmi", "the classifier that ranks documents"), component="learner",
        flag="--learner", metavar="NAME",
    )  # fmt: skip
    features: FeatureSettings = setting(  # noqa: RUF009 - a dataclasses.Field
        Param("features", str, None, "how text becomes features: bmi[:stem=,min_df=,tokens=hical,...] or tfidf[:...]"),
        factory=FeatureSettings, nested=FeatureSettings, flag="--features", metavar="SPEC",
    )  # fmt: skip
    extractor: str = setting(
        Param("extractor", str, "bmi", "the feature extractor (set by --features SPEC; TOML and API key)"),
        component="features",
    )  # fmt: skip
    preset: str | None = setting(
        Param("preset", str, None, "a named bundle of settings; options given with it override it"),
        component="preset", flag="--preset", metavar="NAME",
    )  # fmt: skip
    stopping: tuple[str, ...] = setting(
        Param("stopping", str, None, "stop the review online when this rule fires (the first to fire stops it)"),
        factory=tuple, toml=False, component="stopping", many=True, flag="--stop", metavar="RULE",
    )  # fmt: skip
    log_scores: bool = setting(
        Param("log_scores", bool, False, "keep the learner's scores of every round (OUT/scores/<topic>.npz), for "
              "score-based stopping rules"),
        flag="--log-scores",
    )  # fmt: skip
    seed: int = setting(
        Param("seed", int, 0, "the review's random seed", low=0, high=MAX_SEED), flag="--seed", toml=False,
        metavar="N",
    )  # fmt: skip

    def __post_init__(self) -> None:
        self._coerce()
        check_settings(self)
        self._resolve_priors()
        if not learner_uses_lambda(self.learner) and self.lambda_ != DEFAULT_LAMBDA:
            raise ConfigError(  # named as the CLI (--lambda) and a sweep's [review] (lambda) name it
                f"lambda is the bmi learner's regularisation; learner {self.learner!r} has none"
            )

    def _coerce(self) -> None:
        """Plain values for nested settings, as the CLI and TOML give them: seeding="random", a time_model dict."""
        if isinstance(self.seeding, str):
            object.__setattr__(self, "seeding", SeedingChoice(self.seeding))
        for name, declaration in declared(type(self)):  # max_effort=500, batch=10: a number as its text, as in TOML
            object.__setattr__(self, name, declaration.as_text(getattr(self, name)))
        if isinstance(self.features, str):  # --features SPEC: bmi's settings, or another extractor (tfidf:...)
            made = kind("features").make(self.features)
            if isinstance(made.settings, FeatureSettings):
                object.__setattr__(self, "features", made.settings)
                object.__setattr__(self, "extractor", "bmi")
            else:
                object.__setattr__(self, "extractor", self.features)
                object.__setattr__(self, "features", FeatureSettings())
        elif self.features is None:
            object.__setattr__(self, "features", FeatureSettings())
        for name, cls in (("time_model", TimeModel), ("features", FeatureSettings)):
            value = getattr(self, name)
            if isinstance(value, Mapping):
                unknown = sorted(set(value) - {f.name for f in fields(cls)})
                if unknown:
                    accepted = ", ".join(f.name for f in fields(cls))
                    raise ConfigError(f"{name}: unknown key(s) {', '.join(unknown)}; accepted: {accepted}")
                object.__setattr__(self, name, cls(**value))
        if isinstance(self.stopping, list):
            object.__setattr__(self, "stopping", tuple(self.stopping))
        if self.prior_idx is None or isinstance(self.prior_idx, list):
            object.__setattr__(self, "prior_idx", tuple(self.prior_idx or ()))

    def _resolve_priors(self) -> None:
        """Priors are the seeding: given priors make it `priors`; `priors` without counts or rows draws 1 + 1."""
        drawn = bool(self.n_prior_included or self.n_prior_excluded)
        if drawn and self.prior_idx:
            raise ConfigError("give prior_idx or n_prior_included/n_prior_excluded, not both (as asreview simulate)")
        if len(set(self.prior_idx)) != len(self.prior_idx):
            raise ConfigError(f"prior_idx lists a record twice: {list(self.prior_idx)}")
        if self.prior_idx and self.prior_seed is not None:
            raise ConfigError("prior_seed draws random priors; it does not apply to prior_idx")
        if drawn or self.prior_idx:
            if self.seeding.kind not in ("query", "priors"):
                raise ConfigError(f"priors are the seeding: give priors or seeding {self.seeding.kind!r}, not both")
            object.__setattr__(self, "seeding", SeedingChoice("priors"))
        elif self.seeding.kind == "priors":
            object.__setattr__(self, "n_prior_included", DEFAULT_PRIORS[0])
            object.__setattr__(self, "n_prior_excluded", DEFAULT_PRIORS[1])
        elif self.prior_seed is not None and self.seeding.kind != "query":
            raise ConfigError(f"prior_seed draws random priors; seeding {self.seeding.kind!r} draws none")

    @property
    def effective_prior_seed(self) -> int | None:
        """The seed of the random priors' draw (the review's seed unless prior_seed is given; None: no draw)."""
        if not (self.n_prior_included or self.n_prior_excluded):
            return None
        return self.seed if self.prior_seed is None else self.prior_seed

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
        record["features"] = self.features.record()
        record["seeding"] = {"kind": self.seeding.kind, "docids": list(self.seeding.docids)}
        record["stopping"] = list(self.stopping)
        if self.seeding.kind == "priors":  # recorded only with priors: ledgers without them are unchanged
            record["prior_idx"] = list(self.prior_idx)
            record["prior_seed"] = self.effective_prior_seed
        else:
            for key in PRIOR_FIELDS:
                del record[key]
        record["strategy"] = self.strategy
        for name, implied in RECORDED_IF_SET.items():  # the ledgers of configurations without them stay unchanged
            if record[name] == implied:
                del record[name]
        return record

    @classmethod
    def from_dict(cls, record: dict) -> ReviewConfig:
        """Rebuild a configuration from a ledger header's `config` (nested settings are rebuilt by _coerce)."""
        values = {k: v for k, v in record.items() if k != "strategy"}
        values["seeding"] = SeedingChoice(values["seeding"]["kind"], tuple(values["seeding"]["docids"]))
        return cls(**values)


DEFAULT_POLICY: str = ReviewConfig.__dataclass_fields__["policy"].default
"""The selection policy of a review that names none (a sweep's [sweep] policies when not given, and the policy a
swept preset's run derives its seed from)."""

PRIOR_FIELDS = ("n_prior_included", "n_prior_excluded", "prior_idx", "prior_seed")
"""Settings recorded in a ledger header only when the review starts from priors."""

ADDED_CONFIG_FIELDS = {"learner": "bmi"}
"""Configuration fields added after ledgers were first written, with the value that older ledgers imply."""


RECORDED_IF_SET = {"presumed_with_replacement": False, "extractor": "bmi", "preset": None, "log_scores": False}
"""Fields a ledger header records only when they differ from these values (which a header without them implies)."""


def normalise_config(record: dict) -> dict:
    """A ledger header's `config` with fields it predates filled in, so that comparing configurations (resume,
    one configuration per output directory, grouping in comparisons) treats an older ledger as what it was."""
    return {**ADDED_CONFIG_FIELDS, **record} if record else record


def normalise_header(header: dict) -> dict:
    """A ledger header with its `config` normalised (see normalise_config)."""
    return {**header, "config": normalise_config(header["config"])} if "config" in header else header


def strategy_units(name: str) -> tuple[str, str]:
    """(feedback, train_on) of a named shown/trained strategy; ConfigError naming the accepted ones."""
    if name not in STRATEGIES:
        raise ConfigError(f"strategy {name!r} unknown; accepted: {', '.join(STRATEGIES)}")
    return STRATEGIES[name]


def strategy_config(name: str, **overrides) -> ReviewConfig:
    """A ReviewConfig for a named shown/trained strategy."""
    feedback, train_on = strategy_units(name)
    return ReviewConfig(feedback=feedback, train_on=train_on, **overrides)
