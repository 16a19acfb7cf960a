"""The sentence-level paper's experiment (Zhang, Cormack, Grossman, Smucker, arXiv 1803.08988) on one collection:
the four strategies (shown/trained) x E_judge, E_sent, E_lambda x Recall@aR+b, a in {1, 2, 4}, b in {0, 100, 1000};
mean over topics and seeds, each strategy paired against document/document (BMI), and the recall-effort figure.

    python benchmarks/zhang2018.py COLLECTION [--sentence-qrels FILE] [--seeds N] [--topics T,...]
        [--max-topics K] [--min-relevant M] [--lambda L] [--recall presented|found] [--jobs J] [--out DIR]

COLLECTION is a collection directory (tarsim data convert ...) or `synthetic` (tarsim.datasets.synthetic: planted
relevant sentences, used as the sentence qrels). Sentence labels: --sentence-qrels FILE when given (HARD 2004:
`tarsim data sentence-qrels`), else tarsim's default oracle. Writes DIR/recall_at_effort.csv (every run),
DIR/zhang2018.md (the table, for recall presented and recall found) and DIR/zhang2018.png (the figure), and
prints the tables.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from extras import require_extras  # same folder
from tarsim.config.review import ReviewConfig
from tarsim.data.qrels import write_sentence_qrels
from tarsim.datasets import load_dataset
from tarsim.features.cache import cached_features
from tarsim.metrics.recall_effort import GRID_A, GRID_B, RECALL_KINDS, recall_at_effort, recall_curve
from tarsim.metrics.significance import paired_tests
from tarsim.reporting.tables import RECALL_MEANING
from tarsim.simulator import STRATEGIES, review_topics, strategy_config

BASELINE = "document/document"
ORDER = ("document/document", "document/sentence", "sentence/document", "sentence/sentence")
GRID_POINTS = 200


def load(collection: str, sentence_qrels: str | None, work: Path):
    """The dataset and the sentence oracle to use (a sentence qrels file, or the configured default)."""
    if collection == "synthetic":
        from tarsim.datasets.synthetic import make_synthetic_dataset

        dataset, planted = make_synthetic_dataset()
        path = work / "synthetic_sentence_qrels.txt"
        write_sentence_qrels(path, planted)
        return dataset, str(path)
    return load_dataset(collection), sentence_qrels


def choose_topics(
    dataset, wanted: list[str] | None, minimum: int, most: int | None, maximum: int | None = None
) -> list[str]:
    """The topics asked for, else those with `minimum` to `maximum` relevant documents (the first `most`)."""
    if wanted:
        return wanted
    sizes = {t: sum(g > 0 for g in dataset.qrels.get(t, {}).values()) for t in dataset.topics}
    topics = [t for t, size in sizes.items() if size >= minimum and (maximum is None or size <= maximum)]
    return topics[:most] if most else topics


def review(collection, sentence_qrels, work, topic, strategy, seed, cache) -> list:
    """One review (topic x strategy x seed) to 100% recall; its ledger."""
    dataset, oracle = load(collection, sentence_qrels, work)
    features = cached_features(dataset.collection, cache)
    overrides = {"seed": seed} | ({"sentence_oracle": oracle} if oracle else {})
    batch = review_topics(dataset, strategy_config(strategy, **overrides), [topic], features=features)
    return list(batch.ledgers.values())


def run_frame(ledgers, models: list[str], recall: str) -> pd.DataFrame:
    """One row per run x effort model x (a, b)."""
    rows = []
    for ledger in ledgers:
        for model in models:
            for row in recall_at_effort(ledger, model, recall=recall):
                rows.append({**row, "seed": ledger.header["seed"], "strategy": ledger.header["config"]["strategy"]})
    return pd.DataFrame(rows)


def paper_table(frame: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Rows effort model x aR+b; per strategy the mean Recall@E and, against document/document, diff and p."""
    rows = []
    for model in models:
        for a in GRID_A:
            for b in GRID_B:
                cell = frame[(frame.effort_model == model) & (frame.a == a) & (frame.b == b)]
                by = {
                    s: {f"{r.topic}|{r.seed}": r.recall for r in cell[cell.strategy == s].itertuples()} for s in ORDER
                }
                row = {"effort": model, "E": f"{a}R+{b}"}
                for strategy in ORDER:
                    values = by[strategy]
                    mean = float(np.mean(list(values.values()))) if values else float("nan")
                    text = f"{mean:.3f}"
                    if strategy != BASELINE and len(set(values) & set(by[BASELINE])) >= 2:
                        test = paired_tests(by[BASELINE], values, n_resamples=2000)
                        text += f" ({test['diff']:+.3f}, p={test['p_t']:.3f})"
                    row[strategy] = text
                rows.append(row)
    return pd.DataFrame(rows)


def figure(ledgers, models: list[str], recall: str, path: Path) -> None:
    """Mean recall by effort, one panel per effort model, one line per strategy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tarsim.effort_models import make_effort_model
    from tarsim.reporting.figure_text import IDENTICAL_DASHES, identical_to
    from tarsim.reporting.plots import PALETTE, STYLE

    plt.rcParams.update(STYLE)  # tarsim plot's look and Okabe-Ito colours, one colour per strategy in every panel
    colours = {strategy: PALETTE[i % len(PALETTE)] for i, strategy in enumerate(ORDER)}
    fig, axes = plt.subplots(1, len(models), figsize=(4.2 * len(models), 4.2), layout="constrained")
    for ax, model in zip(np.atleast_1d(axes), models, strict=True):
        curves = {
            s: [
                recall_curve(ledger, model, recall=recall)
                for ledger in ledgers
                if ledger.header["config"]["strategy"] == s
            ]
            for s in ORDER
        }
        # the axis ends just past where the slowest run found its last relevant document (as tarsim plot's)
        top = 1.05 * max(c.effort_to(float(c.recall[-1])) or float(c.effort[-1]) for r in curves.values() for c in r)
        grid = np.linspace(0, top, GRID_POINTS)
        means = {
            strategy: np.mean([[c.recall_at(e) for e in grid] for c in runs], axis=0)
            for strategy, runs in curves.items()
            if runs
        }
        same = identical_to(means)  # drawn dashed over the line it equals, so that both show
        for strategy, mean in means.items():
            label = f"{strategy} (n = {len(curves[strategy])} runs)"
            style = IDENTICAL_DASHES if strategy in same else "-"
            label += f", identical to {same[strategy]}" if strategy in same else ""
            ax.plot(grid, mean, label=label, lw=1.6, color=colours[strategy], ls=style)
        ax.set_title(f"E = {model}")
        ax.set_xlabel(f"effort ({make_effort_model(model).unit})")
        ax.set_ylim(0, 1.02)
        ax.grid(True, color="0.9")
    np.atleast_1d(axes)[0].set_ylabel(f"mean recall ({recall})")
    handles, labels = np.atleast_1d(axes)[-1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize="small", frameon=False)
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("collection", help="collection directory, or `synthetic`")
    parser.add_argument("--sentence-qrels", help="sentence qrels (topic docid sentence_index relevance)")
    parser.add_argument("--seeds", type=int, default=1, help="seeds 0..N-1 per topic and strategy")
    parser.add_argument("--topics", help="comma-separated topic ids (default: see --min-relevant, --max-topics)")
    parser.add_argument("--min-relevant", type=int, default=20)
    parser.add_argument("--max-relevant", type=int, help="leave out topics with more relevant documents")
    parser.add_argument("--max-topics", type=int)
    parser.add_argument("--lambda", dest="lam", type=float, default=0.5, help="E_lambda's lambda")
    parser.add_argument(
        "--recall", choices=RECALL_KINDS, default="presented", help="the figure's recall (the tables show both)"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default="benchmarks/results/zhang2018")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "tarsim-feature-cache"))
    args = parser.parse_args()
    require_extras(__file__, "tabulate", "matplotlib")  # before any work
    out, cache = Path(args.out), Path(args.cache)
    out.mkdir(parents=True, exist_ok=True)
    models = ["judge", "sent", f"lambda:{args.lam:g}"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        dataset, _ = load(args.collection, args.sentence_qrels, work)
        cached_features(dataset.collection, cache)  # built once, before the workers read it
        topics = choose_topics(
            dataset,
            args.topics.split(",") if args.topics else None,
            args.min_relevant,
            args.max_topics,
            args.max_relevant,
        )
        jobs = [(t, s, seed) for t in topics for s in STRATEGIES for seed in range(args.seeds)]
        start = time.perf_counter()
        results = Parallel(n_jobs=args.jobs)(
            delayed(review)(args.collection, args.sentence_qrels, work, t, s, seed, cache) for t, s, seed in jobs
        )
        elapsed = time.perf_counter() - start
    ledgers = [ledger for batch in results for ledger in batch]
    frames = {kind: run_frame(ledgers, models, kind) for kind in RECALL_KINDS}
    frame = pd.concat([f.assign(recall_kind=kind) for kind, f in frames.items()], ignore_index=True)
    frame.sort_values(["recall_kind", "topic", "strategy", "seed", "effort_model", "a", "b"]).to_csv(
        out / "recall_at_effort.csv", index=False
    )
    order = [args.recall, *(kind for kind in RECALL_KINDS if kind != args.recall)]
    figure(ledgers, models, args.recall, out / "zhang2018.png")
    name = (
        "synthetic (tarsim.datasets.synthetic, planted sentences)"
        if args.collection == "synthetic"
        else Path(args.collection).name
    )
    default_oracle = ReviewConfig().sentence_oracle
    label = "planted sentence qrels" if args.collection == "synthetic" else (args.sentence_qrels or default_oracle)
    text = "\n".join(
        [
            f"# Zhang et al. 2018's table on {name}\n",
            f"Topics ({len(topics)}): {', '.join(topics)}; seeds: {args.seeds}; sentence oracle: {label}; "
            f"lambda = {args.lam:g}.",
            "Cells: mean Recall@E over topics and seeds; in parentheses, the mean difference from document/document "
            "(BMI) and the paired t-test's p over the same topic and seed.",
            f"Command: `python benchmarks/zhang2018.py {' '.join(sys.argv[1:])}"
            f"`; {len(jobs)} reviews in {elapsed:.0f} s ({args.jobs} jobs).",
        ]
    )
    for kind in order:
        text += f"\n\n## Recall {kind} ({RECALL_MEANING[kind]})\n\n"
        text += paper_table(frames[kind], models).to_markdown(index=False, disable_numparse=True)
    text += f"\n\nFigure: zhang2018.png (mean recall {args.recall} by effort per strategy, one panel per effort model)."
    (out / "zhang2018.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
