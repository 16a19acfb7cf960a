"""`tarsim simulate`: review topics of a collection (or the built-in demo) and print the Recall@E table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tarsim.cli.progress import TerminalProgress
from tarsim.effort_models import make_effort_model
from tarsim.errors import ConfigError
from tarsim.learners import DEFAULT_LAMBDA, LEARNERS
from tarsim.policies import SeedingChoice
from tarsim.reporting.tables import DEFAULT_EFFORT_MODELS, format_review_tables
from tarsim.simulator.config import ReviewConfig


def register(parser: argparse.ArgumentParser) -> None:
    data = parser.add_argument_group("data (none: the built-in synthetic demo collection)")
    data.add_argument(
        "--collection", metavar="DIR|FILE", help="collection directory, or a screening file (.csv .tsv .xlsx .ris)"
    )
    data.add_argument("--unlabelled", choices=["error", "skip"], default="error", help="unlabelled screening records")
    data.add_argument("--docs", metavar="F", help="docs.jsonl or docs.jsonl.gz")
    data.add_argument("--qrels", metavar="F", help="TREC qrels")
    data.add_argument("--topics", metavar="F", help="topics.tsv (topic id, query text)")
    data.add_argument("--topic", action="append", metavar="ID", help="review only this topic (repeatable)")
    review = parser.add_argument_group("review")
    review.add_argument(
        "--feedback", choices=["document", "sentence"], default="document", help="what the reviewer sees"
    )
    review.add_argument(
        "--train-on", choices=["document", "sentence"], default="document", help="what the learner trains on"
    )
    review.add_argument(
        "--rank-by", choices=["document", "sentence"], help="rank documents by own or best-sentence score"
    )
    review.add_argument(
        "--policy", default="relevance", help="relevance | uncertainty | random | mix:SHARE[:random|uncertainty]"
    )
    review.add_argument("--batch", default="bmi", help="bmi (1, growing by ceil(B/10)) or a fixed batch size")
    review.add_argument("--seeding", choices=["query", "documents", "random"], default="query")
    review.add_argument(
        "--seed-doc", action="append", default=[], metavar="DOCID", help="seed documents (--seeding documents)"
    )
    review.add_argument(
        "--presumed-nonrelevant",
        type=int,
        default=100,
        metavar="N",
        help="unjudged documents added as non-relevant to each training round (BMI: 100)",
    )
    review.add_argument(
        "--learner",
        choices=list(LEARNERS),
        default="bmi",
        help="bmi (default: BMI's regularisation, C = 1/(lambda n)) or logistic (scikit-learn defaults, C = 1, "
        "class-balanced: ASReview's logistic)",
    )
    review.add_argument(
        "--lambda", dest="lambda_", type=float, default=DEFAULT_LAMBDA, metavar="L", help="bmi learner's regularisation"
    )
    review.add_argument("--sentence-oracle", default="inherit", metavar="inherit|classifier|FILE")
    review.add_argument("--false-negative-rate", type=float, default=0.0, metavar="P")
    review.add_argument("--false-positive-rate", type=float, default=0.0, metavar="P")
    review.add_argument("--reviewers", type=int, default=1, metavar="N", help="reviewers judging in parallel")
    review.add_argument(
        "--async-retrain", action="store_true", help="reviewers keep judging while the learner retrains"
    )
    review.add_argument(
        "--retrain-seconds", type=float, default=0.0, metavar="S", help="simulated time a retraining takes"
    )
    review.add_argument("--until", choices=["all-relevant", "exhausted"], default="all-relevant")
    review.add_argument("--max-effort", metavar="aR+b", help="stop at this effort, in the first --effort model's units")
    review.add_argument("--seed", type=int, default=0)
    output = parser.add_argument_group("output")
    output.add_argument(
        "--effort",
        action="append",
        metavar="MODEL",
        help=f"effort model (repeatable; default: {' '.join(DEFAULT_EFFORT_MODELS)})",
    )
    output.add_argument("--out", default="tarsim-out", metavar="DIR", help="output directory (default: tarsim-out)")
    output.add_argument(
        "--resume", action="store_true", help="keep complete ledgers of an earlier run with the same settings"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from tarsim.api import resolve_dataset, simulate
    from tarsim.simulator.run import check_topics

    effort = tuple(args.effort or DEFAULT_EFFORT_MODELS)
    for model in effort:
        make_effort_model(model)
    seeding = SeedingChoice(args.seeding, tuple(args.seed_doc))
    config = ReviewConfig(
        feedback=args.feedback,
        train_on=args.train_on,
        rank_by=args.rank_by,
        policy=args.policy,
        batch=args.batch,
        seeding=seeding,
        presumed_nonrelevant=args.presumed_nonrelevant,
        learner=args.learner,
        lambda_=args.lambda_,
        sentence_oracle=args.sentence_oracle,
        false_negative_rate=args.false_negative_rate,
        false_positive_rate=args.false_positive_rate,
        reviewers=args.reviewers,
        async_retrain=args.async_retrain,
        retrain_seconds=args.retrain_seconds,
        until=args.until,
        max_effort=args.max_effort,
        max_effort_model=effort[0],
        seed=args.seed,
    )
    if args.collection and (args.docs or args.qrels or args.topics):
        raise ConfigError("give either --collection DIR or --docs/--qrels/--topics files, not both")
    dataset = resolve_dataset(
        args.collection, docs=args.docs, qrels=args.qrels, topics=args.topics, unlabelled=args.unlabelled
    )
    topics = check_topics(dataset, args.topic)
    bar = TerminalProgress("topic", "reviewing")
    tick = bar.open(len(topics))
    try:
        result = simulate(
            dataset,
            topic=topics,
            config=config,
            effort=effort,
            out=Path(args.out),
            resume=args.resume,
            progress=(lambda topic: tick()) if tick else None,
        )
    finally:
        bar.close()
    for topic, reason in result.skipped.items():
        print(f"tarsim: skipped topic {topic}: {reason}", file=sys.stderr)
    print(
        f"{'demo collection' if not (args.collection or args.docs) else dataset.name}: "
        f"{len(dataset.collection)} documents, strategy {config.strategy}, seed {config.seed}"
    )
    print(format_review_tables(result.ledgers.values(), result.effort_models))
    print(f"ledgers, recall_at_effort.csv and summary.json written to {args.out}")
    return 0
