"""Review every requested topic of a dataset: features once, one ledger per topic, resumable."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tarsim.config.header_diff import describe_first, header_differences
from tarsim.config.review import ReviewConfig, normalise_config, normalise_header
from tarsim.data.collection import Collection
from tarsim.data.dataset import Dataset
from tarsim.data.digests import collection_digest, text_digest, topic_qrels_digest
from tarsim.data.ledger import (
    Ledger,
    ends_with_end_record,
    first_line,
    iter_ledger_paths,
    judgment_line,
    ledger_from_lines,
    read_ledger,
)
from tarsim.data.output_lock import writing_to
from tarsim.data.score_log import ScoreLog, score_log_path
from tarsim.errors import ConfigError, InputError
from tarsim.features.cache import resolve_cache_dir
from tarsim.features.matrices import Features
from tarsim.features.review import review_features
from tarsim.learners.named import LEARNER_RECORDS
from tarsim.policies import SeedingChoice
from tarsim.policies.seeding import check_prior_counts, check_prior_idx
from tarsim.simulator.ledger import LedgerWriter, MemoryLedgerWriter
from tarsim.simulator.oracle import make_sentence_labels
from tarsim.simulator.review import ReviewSimulation, TopicReview
from tarsim.simulator.strategies import needs_all_sentences
from tarsim.version import __version__

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")


def _escape(text: str) -> str:
    return "%" + "".join(f"{b:02X}" for b in text.encode("utf-8", "surrogatepass"))


LONGEST_NAME = 200
"""Longest ledger file name before `.jsonl`, in bytes: file systems take 255, and the writer's partial file
(`.NAME.jsonl.PID.RANDOM.partial`) and score log need room around it."""


def ledger_name(topic: str) -> str:
    """A file name for a topic's ledger: unsafe characters and a leading dot %-escaped, so distinct topics never
    collide and no ledger is a hidden file (`.hidden` -> `%2Ehidden.jsonl`; names already safe are unchanged). An
    escaped name longer than LONGEST_NAME bytes (a 300-character or a long CJK topic id) is cut and ends with `~` and
    16 hex digits of the topic's SHA-256: `~` is never part of an escaped name, so it collides with no other."""
    name = _UNSAFE.sub(lambda m: _escape(m.group()), topic)
    if name.startswith("."):
        name = _escape(".") + name[1:]
    if len(name) > LONGEST_NAME:  # ASCII after escaping: characters are bytes
        digest = hashlib.sha256(topic.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        name = f"{name[: LONGEST_NAME - len(digest) - 1]}~{digest}"
    return (name or "%") + ".jsonl"  # "%" alone is never an escape, so the empty topic id has its own name


@dataclass
class TopicOutcome:
    """What happened to one requested topic: its ledger, or why it was skipped."""

    topic: str
    ledger: Ledger | None = None
    skipped: str | None = None
    resumed: bool = False


@dataclass
class ReviewBatch:
    """The outcome of reviewing several topics of one dataset under one configuration."""

    config: ReviewConfig
    outcomes: list[TopicOutcome] = field(default_factory=list)

    @property
    def ledgers(self) -> dict[str, Ledger]:
        return {o.topic: o.ledger for o in self.outcomes if o.ledger is not None}

    @property
    def skipped(self) -> dict[str, str]:
        return {o.topic: o.skipped for o in self.outcomes if o.skipped is not None}


def topic_grades(judged: dict[str, int], position: dict[str, int], size: int) -> np.ndarray:
    """The qrels grade of every document of the collection (0 where the qrels do not list it)."""
    grades = np.zeros(size, dtype=np.int64)
    for docid, grade in judged.items():
        if docid in position:
            grades[position[docid]] = grade
    return grades


def ledger_header(
    dataset: Dataset,
    topic: str,
    config: ReviewConfig,
    collection_sha: str,
    relevant: int,
    learner: BaseEstimator | None = None,
) -> dict:
    """What a ledger records about its inputs: version, configuration, seed, digests, R and N."""
    judged = dataset.qrels.get(topic, {})
    query = dataset.topics[topic]
    return {
        "tarsim": __version__,
        "topic": topic,
        "query": query,
        "config": config.to_dict(),
        "seed": config.seed,
        "learner": learner_record(config, learner),
        "inputs": {"collection": collection_sha, "qrels": topic_qrels_digest(judged), "query": text_digest(query)},
        "collection_size": len(dataset.collection),
        "relevant": relevant,
    }


def matches_header(ledger: Ledger, header: dict) -> bool:
    """Whether a complete ledger was written with exactly this header (what resuming keeps)."""
    recorded = {k: v for k, v in ledger.header.items() if k not in ("type", "format")}
    return ledger.complete and normalise_header(recorded) == normalise_header(header)


def check_output_ledgers(
    directory: Path,
    config: ReviewConfig,
    collection_sha: str,
    record: str,
    topics: Sequence[str],
) -> None:
    """Refuse to mix, before any review: every ledger already in `directory` (an output folder's `ledgers`) must come
    from this configuration, learner and collection, one per topic; a ledger of a topic this run does not review (its
    tables will count it) must be complete. The refusal names the first header key that differs."""
    expected = config.to_dict()
    seen: dict[str, str] = {}
    for path in iter_ledger_paths(directory) if directory.is_dir() else []:
        try:
            header = json.loads(first_line(path))
        except json.JSONDecodeError:
            raise InputError(path, 1, "not a ledger (its first line is not JSON)") from None
        if not isinstance(header, dict) or header.get("type") != "header":
            raise InputError(path, 1, "not a ledger (its first line is not a header record)")
        same_config = normalise_config(header.get("config", {})) == expected
        same_learner = header.get("learner") == record
        recorded_sha = header.get("inputs", {}).get("collection") if isinstance(header.get("inputs"), dict) else None
        if not same_config or not same_learner or recorded_sha != collection_sha:
            what = "configuration" if not same_config else "learner" if not same_learner else "collection"
            ours = {"config": expected, "learner": record, "inputs": {"collection": collection_sha}}
            theirs = {"config": header.get("config", {}), "learner": header.get("learner")}
            theirs["inputs"] = {"collection": recorded_sha}
            raise ConfigError(
                f"{directory.parent} already holds ledgers of another {what} ({directory.name}/{path.name}: "
                f"{_first_difference(theirs, ours, what)}); choose another --out (or delete them)"
            )
        topic = str(header.get("topic"))
        if topic in seen:
            raise InputError(path, None, f"a second ledger of topic {topic!r} (the first: {seen[topic]})")
        seen[topic] = path.name
        if topic not in topics and not ends_with_end_record(path):
            raise InputError(path, None, "ledger has no end record (an unfinished review)")


def _first_difference(recorded: dict, expected: dict, what: str) -> str:
    """The first key in which a ledger's header differs from this run's (`config.prior_seed is 1 there, 2 here`),
    those of the part `what` names (configuration, learner, collection) first, for a refusal that says what changed."""
    part = {"configuration": "config", "learner": "learner", "collection": "inputs"}[what]
    differences = sorted(header_differences(recorded, expected), key=lambda d: d[0].split(".")[0] != part)
    return describe_first(differences) if differences else f"its {what} differs"


def check_judged_grades(ledger: Ledger, grades: np.ndarray, position: dict[str, int], path: Path) -> None:
    """Refuse a ledger kept by --resume whose judgments disagree with the qrels: each judged document must be in the
    collection and its recorded truth grade the one the qrels give (a ledger edited by hand, or one whose end record
    has no digest to catch the edit), naming the first such judgment's line."""
    rows = np.array([position.get(docid, -1) for docid in ledger.docids], dtype=np.int64)
    expected = np.where(rows >= 0, grades[np.maximum(rows, 0)], 0) if len(rows) else rows
    bad = (rows < 0) | (ledger.truth != expected)
    if not bad.any():
        return
    first = int(np.argmax(bad))
    docid = ledger.docids[first]
    if rows[first] < 0:
        problem = f"judgment of document {docid!r}, which is not in the collection"
    else:
        problem = f"judgment of {docid!r} records truth {ledger.truth[first]}, but the qrels give {expected[first]}"
    raise InputError(path, judgment_line(path, first), f"{problem} (--resume keeps only a ledger of these qrels)")


def keep_scores(simulation: ReviewSimulation, ledger: Ledger, path: Path | None) -> Ledger:
    """The ledger with its review's score log kept in memory (--log-scores; the review wrote it beside the
    ledger file, OUT/scores/<name>.npz, before the ledger was complete)."""
    log = simulation.score_log
    if log is None or not simulation.config.log_scores:
        return ledger
    return replace(ledger, score_log=log)


def scores_kept(ledger: Ledger, path: Path) -> bool:
    """Whether a finished ledger's score log is whole when its review logged scores (resume re-runs it if not)."""
    if not ledger.header.get("config", {}).get("log_scores"):
        return True
    try:
        ScoreLog.load(score_log_path(path))
    except InputError:
        return False
    return True


def run_review(simulation: ReviewSimulation) -> dict:
    """Simulate one review to its end; an interrupted or failed review leaves no partial ledger, also one stopped
    before its rounds started (rounds() drops the ledger of a review stopped inside them)."""
    try:
        return simulation.run()
    except BaseException:
        simulation.writer.abort()
        raise


def topic_review(
    config: ReviewConfig,
    topic: str,
    query: str,
    grades: np.ndarray,
    features: Features,
    docids: Sequence[str],
    unlabelled_rows: tuple[int, ...] = (),
    collection: Collection | None = None,
) -> TopicReview:
    """One topic's review inputs with the configuration's sentence oracle (`collection`: only an oracle reading
    sentence qrels needs it)."""
    labels = make_sentence_labels(
        config.sentence_oracle,
        topic,
        collection,
        features,
        (grades > 0).astype(np.int8),
        config.oracle_threshold,
        config.seed,
    )
    return TopicReview(topic, query, grades, labels, docids, unlabelled_rows)


def topic_simulation(
    dataset: Dataset,
    config: ReviewConfig,
    topic: str,
    grades: np.ndarray,
    features: Features,
    header: dict,
    path: Path | None,
    learner: BaseEstimator | None = None,
) -> ReviewSimulation:
    """The review of one topic of `dataset`, ready to run, writing its ledger to `path` (to memory without one)."""
    collection = dataset.collection
    review = topic_review(
        config, topic, dataset.topics[topic], grades, features, collection.docids, dataset.unlabelled_rows, collection
    )
    writer = LedgerWriter(path, header) if path is not None else MemoryLedgerWriter(header)
    return ReviewSimulation(features, review, config, writer, learner)


def check_topics(dataset: Dataset, topics: Sequence[str] | None) -> list[str]:
    """The topics to review (default: every topic with qrels, in topics-file order, then the rest)."""
    if topics:
        for topic in topics:
            if topic not in dataset.qrels:
                raise ConfigError(f"topic {topic!r} is not in the qrels; known topics: {_preview(dataset.qrels)}")
            if topic not in dataset.topics:
                raise ConfigError(f"topic {topic!r} has no query text in the topics file")
        return list(dict.fromkeys(topics))
    ordered = [t for t in dataset.topics if t in dataset.qrels]
    if not ordered:  # say why, not only that nothing was reviewed
        topics_file = _preview(dataset.topics) or "none"
        raise ConfigError(
            f"no topic to review: none has both qrels and a query in the topics file (qrels topics: "
            f"{_preview(dataset.qrels) or 'none'}; topics file: {topics_file})"
        )
    return ordered


def starting_config(config: ReviewConfig, queries: Sequence[str]) -> ReviewConfig:
    """The configuration a review starts with: without query text (a screening file) and with the default query
    seeding, the review starts from 1 relevant + 1 non-relevant random prior drawn with prior_seed (default: the
    review's seed); a prior_seed is refused where no random prior is drawn."""
    blank = bool(queries) and all(not query.strip() for query in queries)
    if config.seeding.kind == "query" and blank:
        return replace(config, seeding=SeedingChoice("priors"))
    if config.prior_seed is not None and config.effective_prior_seed is None:
        raise ConfigError("prior_seed draws random priors, but this review starts from the topic's query text")
    return config


def _preview(names) -> str:
    names = sorted(names)
    return ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")


def review_topics(
    dataset: Dataset,
    config: ReviewConfig,
    topics: Sequence[str] | None = None,
    out: Path | None = None,
    *,
    learner: BaseEstimator | None = None,
    features: Features | None = None,
    resume: bool = False,
    progress: Callable[[str], None] | None = None,
    cache_dir: Path | None = None,
) -> ReviewBatch:
    """Simulate the review of each topic; with `out`, ledgers go to OUT/ledgers/<topic>.jsonl.

    Features come from the user's feature cache (`cache_dir`, else $TARSIM_CACHE_DIR or platformdirs' user cache
    dir) unless given. Topics without a relevant document are skipped with a reason. With `resume`, a topic whose
    complete ledger exists with the same configuration is read back instead of being reviewed again.
    """
    selected, config = checked_topics(dataset, config, topics)
    if out is None:
        return _review_topics(dataset, config, selected, None, learner, features, resume, progress, cache_dir)
    with writing_to(Path(out)):  # one writer per output folder, for the whole run
        return _review_topics(dataset, config, selected, Path(out), learner, features, resume, progress, cache_dir)


def checked_topics(
    dataset: Dataset, config: ReviewConfig, topics: Sequence[str] | None
) -> tuple[list[str], ReviewConfig]:
    """The topics to review and the configuration they start with, their priors checked, before any feature is
    built."""
    selected = check_topics(dataset, topics)
    config = starting_config(config, [dataset.topics[topic] for topic in selected])
    check_priors(dataset, config, selected)
    return selected, config


def cached_review_features(dataset: Dataset, config: ReviewConfig, cache_dir: Path | None) -> Features:
    """The collection's features for this configuration, from the user's feature cache (built there if missing)."""
    sentences = needs_all_sentences(config)  # else documents only, sentences segmented as the review needs
    return review_features(dataset.collection, resolve_cache_dir(cache_dir), config.extractor, config.features,
                           sentences)  # fmt: skip


@contextlib.contextmanager
def keeping_sentences(features: Features) -> Iterator[Features]:
    """Lazily built features for a review: when it ends, however it ends, the sentences it segmented go to the
    feature cache for later runs over the collection (and the background segmenting stops)."""
    try:
        yield features
    finally:
        if features.lazy is not None:
            features.lazy.save()


def learner_record(config: ReviewConfig, learner: BaseEstimator | None) -> str:
    """What a ledger header's `learner` says: the estimator object given, else the named learner's record."""
    return repr(learner) if learner is not None else LEARNER_RECORDS[config.learner]


def check_priors(dataset: Dataset, config: ReviewConfig, topics: Sequence[str]) -> None:
    """Check every topic's priors before any feature is built, so that a bad count or row is refused first; the
    review draws them (once)."""
    if config.seeding.kind != "priors":
        return
    docids = dataset.collection.docids
    if config.prior_idx:
        check_prior_idx(config.prior_idx, len(docids), dataset.unlabelled_rows)
        return
    position = {docid: i for i, docid in enumerate(docids)}
    for topic in topics:
        grades = topic_grades(dataset.qrels.get(topic, {}), position, len(position))
        if (grades > 0).any():  # a topic without a relevant record is skipped with that reason, not a prior count
            check_prior_counts(grades > 0, config.n_prior_included, config.n_prior_excluded, topic)


def _review_topics(
    dataset: Dataset,
    config: ReviewConfig,
    selected: list[str],
    out: Path | None,
    learner: BaseEstimator | None,
    features: Features | None,
    resume: bool,
    progress: Callable[[str], None] | None,
    cache_dir: Path | None = None,
) -> ReviewBatch:
    if features is None:
        features = cached_review_features(dataset, config, cache_dir)
    with keeping_sentences(features):
        return _review_each_topic(dataset, config, selected, out, learner, features, resume, progress)


def _review_each_topic(
    dataset: Dataset,
    config: ReviewConfig,
    selected: list[str],
    out: Path | None,
    learner: BaseEstimator | None,
    features: Features,
    resume: bool,
    progress: Callable[[str], None] | None,
) -> ReviewBatch:
    docids = dataset.collection.docids
    position = {docid: i for i, docid in enumerate(docids)}
    collection_sha = collection_digest(dataset.collection)
    if out is not None:
        check_output_ledgers(Path(out) / "ledgers", config, collection_sha, learner_record(config, learner), selected)
    batch = ReviewBatch(config)
    for topic in selected:
        grades = topic_grades(dataset.qrels.get(topic, {}), position, len(docids))
        if not (grades > 0).any():
            batch.outcomes.append(TopicOutcome(topic, skipped="no relevant document in the collection"))
            if progress:
                progress(topic)
            continue
        header = ledger_header(dataset, topic, config, collection_sha, int((grades > 0).sum()), learner)
        path = Path(out) / "ledgers" / ledger_name(topic) if out else None
        if resume and path is not None and path.exists():
            existing = read_ledger(path)
            if matches_header(existing, header) and scores_kept(existing, path):
                check_judged_grades(existing, grades, position, path)
                batch.outcomes.append(TopicOutcome(topic, ledger=existing, resumed=True))
                if progress:
                    progress(topic)
                continue
        simulation = topic_simulation(dataset, config, topic, grades, features, header, path, learner)
        writer = simulation.writer
        run_review(simulation)
        ledger = read_ledger(path) if path is not None else ledger_from_lines(writer.lines)
        ledger = keep_scores(simulation, ledger, path)
        batch.outcomes.append(TopicOutcome(topic, ledger=ledger))
        if progress:
            progress(topic)
    return batch
