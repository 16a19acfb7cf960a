"""The sweep's tidy results table: one row per run x measure, computed from the ledgers alone.

Columns: run_id, collection, topic, policy, strategy, seed, prior_seed, effort_model, stopping, measure, value (and,
after topic, `preset` and a column per [sweep] vary setting, named by its key, when the sweep varies them).
`effort_model` is null for measures that are not effort (R, collection size, final recall, recall at stop, ...);
measures counted in judgments (WSS, RRF, ERF) are listed under `judge`. `stopping` names the stopping rule of the
`*_at_stop` measures and is null otherwise. `prior_seed` is the seed the run's random priors were drawn with (from
its ledger header; null without random priors). A value that does not exist (a recall level never reached) is null.
Null is an empty cell in results.csv, so pandas reads both tables alike (an empty string would come back as NaN).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from tarsim.data.atomic import atomic_write
from tarsim.data.ledger import Ledger
from tarsim.data.paths import SWEEP_RESULT_TABLES
from tarsim.effort_models import make_effort_model
from tarsim.metrics.recall_effort import GRID_A, GRID_B, recall_curve
from tarsim.metrics.tar import tar_measures
from tarsim.stopping.measures import stop_measures
from tarsim.sweep.dimensions import token
from tarsim.sweep.plan import RunSpec

COLUMNS = [
    "run_id",
    "collection",
    "topic",
    "policy",
    "strategy",
    "seed",
    "prior_seed",
    "effort_model",
    "stopping",
    "measure",
    "value",
]
JUDGMENT_MEASURES = ("wss_", "rrf_", "erf_")
"""tar_measures keys that do not depend on the effort model (they count judgments)."""


def _value(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def run_rows(
    ledger: Ledger,
    run: RunSpec,
    effort_models: Sequence[str],
    stopping: Sequence[str] = (),
    target_recall: float = 0.8,
    docids: Sequence[str] | None = None,
    qrels: Mapping[str, Mapping[str, int]] | None = None,
) -> list[dict]:
    """Every measure of one run's ledger as tidy rows."""
    ident = {
        "run_id": run.run_id,
        "collection": run.collection,
        "topic": run.topic,
        **({} if run.preset is None else {"preset": run.preset}),  # [sweep] presets: a column of its own
        **{key: token(value) for key, value in run.vary},  # [sweep] vary: a column per varied setting
        "policy": run.policy,
        "strategy": run.strategy,
        "seed": run.seed,
        "prior_seed": ledger.header.get("config", {}).get("prior_seed"),
    }
    rows: list[dict] = []

    def add(measure: str, value, effort_model: str | None = None, stopping_rule: str | None = None) -> None:
        rows.append(
            {
                **ident,
                "effort_model": effort_model,
                "stopping": stopping_rule,
                "measure": measure,
                "value": _value(value),
            }
        )

    judge = recall_curve(ledger, "judge")
    add("relevant", ledger.relevant)
    add("collection_size", ledger.collection_size)
    add("final_recall", judge.recall[-1] if len(ledger) else 0.0)
    for key, value in tar_measures(ledger, effort_model="judge").items():
        if key.startswith(JUDGMENT_MEASURES):
            add(key, value, "judge")
    for spec in effort_models:
        model = make_effort_model(spec)
        curve = recall_curve(ledger, model)
        add("total_effort", curve.effort[-1] if len(ledger) else 0.0, model.name)
        for a in GRID_A:
            for b in GRID_B:
                add(f"recall@{a}R+{b}", curve.known_recall_at(a * curve.relevant + b), model.name)
        for key, value in tar_measures(ledger, effort_model=model.name).items():
            if not key.startswith(JUDGMENT_MEASURES):
                add(key, value, model.name)
    if stopping:
        names = [make_effort_model(spec).name for spec in effort_models]
        outcomes = stop_measures(
            ledger, stopping, target_recall, docids=docids, qrels=qrels, effort_models=list(effort_models)
        )
        for outcome in outcomes:
            rule = outcome["rule"]
            add("stopped", outcome["stopped"], stopping_rule=rule)
            add("recall_at_stop", outcome["recall"], stopping_rule=rule)
            add("target_met", outcome["target_met"], stopping_rule=rule)
            for name in names:
                add("effort_at_stop", outcome[f"effort_{name}"], name, rule)
            add("cost_at_stop", outcome["cost_judge"], "judge", rule)
    return rows


def results_frame(rows: Iterable[dict]) -> pd.DataFrame:
    """The tidy table with fixed column order and dtypes (value: float64 with nulls); a sweep of several presets has
    a `preset` column after `topic`, and one of varied settings a column per setting (its [review] key) after it."""
    rows = list(rows)
    swept = list(dict.fromkeys(key for row in rows for key in row if key not in COLUMNS))
    columns = [*COLUMNS[:3], *swept, *COLUMNS[3:]]
    frame = pd.DataFrame(rows, columns=columns)
    frame["seed"] = frame["seed"].astype("int64")
    frame["prior_seed"] = frame["prior_seed"].astype("Int64")  # nullable: runs without random priors
    frame["value"] = frame["value"].astype("float64")
    return frame


TEXT_COLUMNS = ("effort_model", "stopping")
"""Text columns that may hold only nulls (a sweep without stopping rules): typed as strings in results.parquet all
the same, so that two sweeps' tables can be read together (a null-typed column cannot be cast to a string one)."""


def write_results(out: Path, frame: pd.DataFrame) -> None:
    """OUT/results.parquet and OUT/results.csv, each written atomically."""
    csv_name, parquet_name = SWEEP_RESULT_TABLES
    with atomic_write(Path(out) / csv_name) as handle:
        frame.to_csv(handle, index=False, lineterminator="\n")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    for column in TEXT_COLUMNS:
        index = table.schema.get_field_index(column)
        if pa.types.is_null(table.schema.field(column).type):
            table = table.set_column(index, column, table.column(column).cast(pa.large_string()))
    with atomic_write(Path(out) / parquet_name, "wb") as handle:
        pq.write_table(table, handle)
