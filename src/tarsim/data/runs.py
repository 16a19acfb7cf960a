"""TREC runs (`topic Q0 docid rank score tag`) and binary decision files (`topic docid label`)."""

from __future__ import annotations

from tarsim.data.atomic import atomic_write
from tarsim.data.lines import PathLike, iter_lines, parse_float, parse_int, split_fields
from tarsim.errors import InputError

Run = dict[str, dict[str, float]]
"""topic -> docid -> score (higher is better); the layout pytrec_eval uses."""

Decisions = dict[str, dict[str, int]]
"""topic -> docid -> binary label (1 relevant, 0 not)."""


def read_run(path: PathLike) -> Run:
    """Read a TREC run; reject wrong column counts, non-numeric rank or score, duplicate (topic, docid).

    A fast pass parses lines without per-field checks; any malformed line sends the file through the
    checked reader, which names the first bad line (a run of 5M lines reads in a few seconds).
    """
    run: Run = {}
    try:
        for _number, line in iter_lines(path):
            topic, _q0, docid, rank, score, _tag = line.split()
            int(rank)
            value = float(score)
            if value - value != 0.0:  # NaN or infinity
                raise ValueError(score)
            ranked = run.get(topic)
            if ranked is None:
                ranked = run[topic] = {}
            elif docid in ranked:
                raise ValueError(docid)
            ranked[docid] = value
    except ValueError:
        return _read_run_checked(path)
    return run


def _read_run_checked(path: PathLike) -> Run:
    """Read a TREC run checking every field, so that the error names the first bad line."""
    run: Run = {}
    for number, line in iter_lines(path):
        fields = line.split()
        if len(fields) != 6:
            raise InputError(path, number, f"expected 6 columns (topic Q0 docid rank score tag), found {len(fields)}")
        topic, _q0, docid, rank, score, _tag = fields
        parse_int(path, number, rank, "rank")
        value = parse_float(path, number, score, "score")
        ranked = run.get(topic)
        if ranked is None:
            ranked = run[topic] = {}
        if docid in ranked:
            raise InputError(path, number, f"duplicate docid {docid!r} for topic {topic!r}")
        ranked[docid] = value
    return run


def write_run(path: PathLike, run: Run, tag: str = "tarsim") -> None:
    """Write a TREC run, each topic ranked by score descending (ties by docid descending, as trec_eval)."""
    with atomic_write(path) as out:
        for topic in sorted(run):
            ranked = sorted(run[topic].items(), key=lambda item: (item[1], item[0]), reverse=True)
            for rank, (docid, score) in enumerate(ranked, start=1):
                out.write(f"{topic} Q0 {docid} {rank} {score!r} {tag}\n")


def read_decisions(path: PathLike) -> Decisions:
    """Read binary relevance decisions `topic docid label` (label 0 or 1)."""
    decisions: Decisions = {}
    for number, line in iter_lines(path):
        topic, docid, label = split_fields(path, number, line, 3, "topic docid label")
        value = parse_int(path, number, label, "label")
        if value not in (0, 1):
            raise InputError(path, number, f"label must be 0 or 1, got {value}")
        decided = decisions.setdefault(topic, {})
        if docid in decided:
            raise InputError(path, number, f"duplicate decision for topic {topic!r}, docid {docid!r}")
        decided[docid] = value
    return decisions


def write_decisions(path: PathLike, decisions: Decisions) -> None:
    """Write binary decisions `topic docid label`, sorted (atomic)."""
    with atomic_write(path) as out:
        for topic in sorted(decisions):
            for docid in sorted(decisions[topic]):
                out.write(f"{topic} {docid} {decisions[topic][docid]}\n")


class RunTable:
    """A TREC run as columns (topic and docid codes, scores), read at C speed: what evaluate_run needs.

    `topics[code]` and `docids[code]` name the codes; rows keep the file's order. `to_dict()` gives the Run.
    """

    def __init__(self, topics: list[str], topic_codes, docids, docid_codes, scores) -> None:
        import numpy as np

        self.topics = topics
        self.topic_codes = np.asarray(topic_codes, dtype=np.int64)
        self.docids = docids  # a pyarrow string array (large: kept out of Python objects)
        self.docid_codes = np.asarray(docid_codes, dtype=np.int64)
        self.scores = np.asarray(scores, dtype=np.float64)
        order = np.argsort(self.topic_codes, kind="stable")
        self.order = order
        """Row indexes grouped by topic code (file order within a topic)."""
        self.starts = np.searchsorted(self.topic_codes[order], np.arange(len(topics) + 1))
        """Rows of topic code t are order[starts[t]:starts[t + 1]]."""
        self._stride = len(docids) + 1
        keys = self.topic_codes * self._stride + self.docid_codes
        self._key_order = np.argsort(keys)
        self._sorted_keys = keys[self._key_order]

    def has_duplicates(self) -> bool:
        """Whether some (topic, docid) has two lines."""
        return bool((self._sorted_keys[1:] == self._sorted_keys[:-1]).any())

    def rows_of(self, topic_codes, docid_codes):
        """The row of each (topic code, docid code) pair, -1 where there is none."""
        import numpy as np

        keys = np.asarray(topic_codes, dtype=np.int64) * self._stride + np.asarray(docid_codes, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._sorted_keys, keys), len(self._sorted_keys) - 1)
        found = (self._sorted_keys[at] == keys) & (np.asarray(docid_codes) >= 0)
        return np.where(found, self._key_order[at], -1)

    def __len__(self) -> int:
        return len(self.scores)

    def docid_codes_of(self, docids: list[str]):
        """The code of each docid (-1 when no run line names it)."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        found = pc.index_in(pa.array(docids, type=pa.string()), value_set=self.docids)
        return np.asarray(found.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)

    def to_dict(self) -> Run:
        """The run as read_run returns it: topic -> docid -> score, topics and docids in file order."""
        names = self.docids.to_pylist()
        run: Run = {}
        for topic, code, score in zip(
            self.topic_codes.tolist(), self.docid_codes.tolist(), self.scores.tolist(), strict=True
        ):
            run.setdefault(self.topics[topic], {})[names[code]] = score
        return run


def read_run_table(path: PathLike) -> RunTable | Run:
    """Read a TREC run as columns with pyarrow's CSV reader (multi-threaded C++); the same checks as read_run.

    Files the fast reader cannot take exactly as read_run would (gzip, runs of white space, CRLF, a BOM, odd
    white space, anything malformed: a duplicate, a NaN, a bad rank) go through read_run, which accepts the same
    files and names the first bad line; then the Run dict is returned. evaluate_run takes either.
    """
    table = _parse_run_columns(path)
    return table if table is not None else read_run(path)


def _parse_run_columns(path: PathLike) -> RunTable | None:
    """Columns of a run whose lines are plainly `topic Q0 docid rank score tag`, else None."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from tarsim.data.plain_columns import read_plain_columns

    names = ["topic", "q0", "docid", "rank", "score", "tag"]
    types = {"topic": pa.string(), "docid": pa.string(), "rank": pa.string(), "score": pa.float64()}
    table = read_plain_columns(path, names, types)  # Q0 and tag are not kept (read_run ignores them too)
    if table is None:
        return None
    if not pc.all(pc.ascii_is_decimal(table["rank"])).as_py():
        return None  # a sign, "1_0" or "0x1": int() decides (pyarrow's integers differ from Python's)
    scores = table["score"].to_numpy()
    if not np.isfinite(scores).all():
        return None
    topic_codes = pc.dictionary_encode(table["topic"]).combine_chunks()
    docid_codes = pc.dictionary_encode(table["docid"]).combine_chunks()
    run = RunTable(
        topic_codes.dictionary.to_pylist(),
        topic_codes.indices.to_numpy(),
        docid_codes.dictionary,
        docid_codes.indices.to_numpy(),
        scores,
    )
    if run.has_duplicates():
        return None  # a duplicate (topic, docid): read_run names its line
    return run
