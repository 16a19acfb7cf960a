"""`tarsim simulate`: review topics of a collection (or the built-in demo) and print the Recall@E table."""

from __future__ import annotations

import argparse
import os
import sys

from tarsim.cli.common import check_input_file, check_out_folder
from tarsim.cli.progress import TerminalProgress
from tarsim.components import kind as component_kind
from tarsim.components import validate
from tarsim.components.schema import add_options, option_values
from tarsim.config.presets import apply_preset, check_query_seeding, default_preset
from tarsim.config.review import ReviewConfig
from tarsim.effort_models import DEFAULT_EFFORT_MODELS
from tarsim.errors import ConfigError
from tarsim.policies import SeedingChoice
from tarsim.reporting.tables import default_effort_models, format_review_tables


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
    review = parser.add_argument_group("review (tarsim list: every learner, policy, batch, oracle, effort model)")
    add_options(review, ReviewConfig)
    for action in review._group_actions:  # None: not given, so that a --preset's settings apply unless overridden
        action.default = None
    review.add_argument(
        "--seed-doc", action="append", default=[], metavar="DOCID", help="seed documents (--seeding documents)"
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--effort",
        action="append",
        metavar="MODEL",
        help=f"effort model (repeatable; the first also counts --max-effort; default: {' '.join(DEFAULT_EFFORT_MODELS)}"
        ", judge alone for a screening file; see tarsim list effort)",
    )
    output.add_argument(
        "--recall",
        choices=("presented", "found"),
        default="presented",
        help="recall of the tables printed and written: relevant documents presented (default) or presented and "
        "labelled relevant",
    )
    output.add_argument("--out", default="tarsim-out", metavar="DIR", help="output directory (default: tarsim-out)")
    output.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="feature cache (default: $TARSIM_CACHE_DIR, else the user cache dir; see tarsim cache info)",
    )
    output.add_argument(
        "--resume", action="store_true", help="keep complete ledgers of an earlier run with the same settings"
    )
    parser.set_defaults(handler=run)


def _priors(config: ReviewConfig | None) -> str:
    """How the review started when it started from priors (the ledger header records the same)."""
    if config is None or config.seeding.kind != "priors":
        return ""
    if config.prior_idx:
        return f", priors (rows {' '.join(map(str, config.prior_idx))})"
    counts = f"{config.n_prior_included} relevant + {config.n_prior_excluded} non-relevant"
    return f", random priors {counts} (prior seed {config.effective_prior_seed})"


def _overrides(config: ReviewConfig | None) -> str:
    """` with learner nb:alpha=3.822; extractor tfidf` where the run's settings replace the preset's (as `tarsim
    metrics` and `tarsim compare` name such a run), else nothing."""
    from tarsim.metrics.insights import overrides

    changed = overrides(config.to_dict()) if config is not None else []
    return f" with {'; '.join(changed)}" if changed else ""


def run(args: argparse.Namespace) -> int:
    from tarsim.api.review import resolve_dataset, simulate
    from tarsim.data.output_lock import output_lock
    from tarsim.data.paths import check_output_path
    from tarsim.features.cache import resolve_cache_dir
    from tarsim.simulator.run import check_topics

    effort = tuple(args.effort or default_effort_models(args.collection))  # a screening file: judgments
    values = {name: value for name, value in option_values(args, ReviewConfig).items() if value is not None}
    if args.seeding:
        check_query_seeding(args.collection, args.seeding)
    values["seeding"] = SeedingChoice(args.seeding or "query", tuple(args.seed_doc or ()))
    preset = values.pop("preset", None)
    if preset is not None and not preset.strip():  # `--preset ''` used to mean the default preset, without a word
        raise ConfigError(f"--preset is empty; accepted: {component_kind('preset').accepted()}")
    oracle = values.get("sentence_oracle")
    if oracle is not None and oracle.strip() not in component_kind("oracle").names():  # a file: /dev/null is none
        check_input_file(oracle, "--sentence-oracle", "a sentence qrels file")
    values = apply_preset(preset if preset is not None else default_preset(args.collection), values)
    config = ReviewConfig(**values, max_effort_model=effort[0])  # validates everything before any data is read
    for model in effort[1:]:
        validate("effort", model)
    if args.collection and (args.docs or args.qrels or args.topics):
        raise ConfigError("give either --collection DIR or --docs/--qrels/--topics files, not both")
    check_out_folder(args.out)  # a symlink loop on the way was reported as "File exists"
    out = check_output_path(args.out, "--out", directory=True)
    if args.cache_dir is not None:
        resolve_cache_dir(args.cache_dir)  # a blank --cache-dir or a file is refused before anything is written
    with output_lock(out):  # a second writer stops before reading any data (re-entrant for simulate below)
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
                out=out,
                resume=args.resume,
                cache_dir=args.cache_dir,
                progress=(lambda topic: tick()) if tick else None,
                recall=args.recall,
            )
        finally:
            bar.close()
    for topic, reason in result.skipped.items():
        print(f"tarsim: skipped topic {topic}: {reason}", file=sys.stderr)
    print(
        f"{'demo collection' if not (args.collection or args.docs) else dataset.name}: "
        f"{len(dataset.collection)} documents, strategy {config.strategy}, seed {config.seed}{_priors(result.config)}"
        + (f", preset {config.preset}{_overrides(result.config)}" if config.preset else "")
    )
    print(format_review_tables([*result.ledgers.values(), *result.earlier.values()], result.effort_models, args.recall))
    if result.earlier:  # the tables describe the whole output folder, as `tarsim report` does
        shown = ", ".join(sorted(result.earlier))
        topics = f"{len(result.earlier)} topic{'' if len(result.earlier) == 1 else 's'}"
        print(f"(the tables include {topics} an earlier run left in {args.out}: {shown})")
    kind = "" if args.recall == "presented" else f" (recall {args.recall})"
    print(f"ledgers, recall_at_effort.csv and summary.json{kind} written to {args.out}")
    if not (args.collection or args.docs):  # the demo: what its words mean
        print(DEMO_TERMS)
    print(next_steps(args.out))
    return 0


DEMO_TERMS = """
Terms: R = a topic's relevant documents; judged = documents judged; Recall@aR+b = the share of R found after
aR+b effort; effort models: judge = judgments, sent = sentences read, lambda:0.5 = half of each, seconds and
clock = modelled reading time (glossary: docs/semantics.md#glossary)."""


def next_steps(out: str) -> str:
    """The two commands a new user most likely wants next, on the output just written (their files go into it, so
    that following them after another review does not overwrite the first one's)."""
    figure, page = os.path.join(out, "recall.png"), os.path.join(out, "report.html")
    return (
        f"next: tarsim plot {out} --out {figure}   (recall by effort)\n"
        f"      tarsim report {out} --html {page}   (tables and interactive figures on one page)"
    )
