"""The data layer: round trips, and every bad-input case rejected with one line naming file, line, problem."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.data import (
    Document,
    iter_documents,
    read_collection,
    read_decisions,
    read_qrels,
    read_run,
    read_sentence_qrels,
    read_topics,
    write_collection,
    write_decisions,
    write_qrels,
    write_run,
    write_sentence_qrels,
    write_topics,
)
from tarsim.datasets import load_dataset
from tarsim.errors import InputError, InputWarning
from tarsim.interop.asreview_csv import read_asreview_csv

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
READERS = {
    "qrels": read_qrels,
    "run": read_run,
    "topics": read_topics,
    "collection": read_collection,
    "sentence_qrels": read_sentence_qrels,
    "decisions": read_decisions,
}
GOOD_LINE = {
    "qrels": "t1 0 d1 1\n",
    "run": "t1 Q0 d1 1 2.5 tag\n",
    "topics": "t1\tsome query\n",
    "collection": '{"docid": "d1", "text": "hello"}\n',
    "sentence_qrels": "t1 d1 0 1\n",
    "decisions": "t1 d1 1\n",
}

BAD_CASES = [
    # (reader, file content, line, fragment of the problem)
    ("qrels", "t1 0 d1 1\nt1 0 d2\n", 2, "expected 4 columns"),
    ("qrels", "t1 0 d1 1 extra\n", 1, "expected 4 columns"),
    ("qrels", "t1 0 d1 yes\n", 1, "relevance is not an integer"),
    ("qrels", "t1 0 d1 1.5\n", 1, "relevance is not an integer"),
    ("qrels", "t1 0 d1 1\nt1 0 d1 0\n", 2, "conflicting judgments for topic 't1', docid 'd1': 1 and 0"),
    ("run", "t1 Q0 d1 1 2.5\n", 1, "expected 6 columns"),
    ("run", "t1 Q0 d1 1 2.5 tag\nt1 Q0 d2 2 2.5 tag extra\n", 2, "expected 6 columns"),
    ("run", "t1 Q0 d1 1 high tag\n", 1, "score is not a number"),
    ("run", "t1 Q0 d1 1 nan tag\n", 1, "score is not a finite number"),
    ("run", "t1 Q0 d1 1 2.5 tag\nt1 Q0 d2 2 0_5 tag\n", 2, "score is not a number: '0_5'"),  # float() reads 5.0
    ("run", "t1 Q0 d1 1_0 2.5 tag\n", 1, "rank is not an integer: '1_0'"),
    ("run", "t1 Q0 d1 first 2.5 tag\n", 1, "rank is not an integer"),
    ("run", "t1 Q0 d1 1 2.5 tag\nt2 Q0 d1 1 2.5 tag\nt1 Q0 d1 2 1.0 tag\n", 3, "duplicate docid 'd1' for topic 't1'"),
    ("topics", "t1 no tab here\n", 1, "expected 2 tab-separated columns"),
    ("topics", "t1\tq\nt1\tr\n", 2, "duplicate topic id"),
    ("topics", "t1\t \n", 1, "empty topic id or query"),
    ("collection", '{"docid": "d1", "text": "a"}\n{"docid": "d1", "text": "b"}\n', 2, "duplicate docid 'd1'"),
    ("collection", '{"docid": "d1", "text": "a"}\n{"docid": "d2", "text": \n', 2, "invalid JSON"),
    ("collection", '{"docid": "d1", "text": "a\x00b"}\n', 1, "NUL byte (binary data), not text"),
    ("collection", '{"text": "a"}\n', 1, 'no "docid" field'),
    ("collection", '{"docid": "d 1", "text": "a"}\n', 1, "contains white space"),
    ("collection", '["d1", "a"]\n', 1, "expected a JSON object"),
    ("collection", '{"docid": "d1", "text": 3}\n', 1, "must be strings"),
    ("sentence_qrels", "t1 d1 0\n", 1, "expected 4 columns"),
    ("sentence_qrels", "t1 d1 -1 1\n", 1, "sentence_index must be >= 0"),
    ("sentence_qrels", "t1 d1 zero 1\n", 1, "sentence_index is not an integer"),
    ("sentence_qrels", "t1 d1 0 1\nt1 d1 0 0\n", 2, "duplicate judgment"),
    ("decisions", "t1 d1\n", 1, "expected 3 columns"),
    ("decisions", "t1 d1 2\n", 1, "label must be 0 or 1"),
    ("decisions", "t1 d1 yes\n", 1, "label is not an integer"),
    ("decisions", "t1 d1 1\nt1 d1 0\n", 2, "duplicate decision"),
]


def check_one_line(error: InputError, path: Path, line: int | None, fragment: str) -> None:
    message = str(error)
    assert "\n" not in message
    assert message.startswith(f"{path}:{line}: " if line is not None else f"{path}: ")
    assert fragment in message


@pytest.mark.parametrize(("reader", "content", "line", "fragment"), BAD_CASES)
def test_bad_input_names_file_line_and_problem(tmp_path, reader, content, line, fragment):
    path = tmp_path / f"{reader}.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        READERS[reader](path)
    check_one_line(caught.value, path, line, fragment)


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_empty_files_are_rejected(tmp_path, reader, content):
    path = tmp_path / f"{reader}.txt"
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        READERS[reader](path)
    check_one_line(caught.value, path, None, "empty file")


@pytest.mark.parametrize("reader", sorted(READERS))
def test_undecodable_bytes_are_rejected_with_their_line(tmp_path, reader):
    path = tmp_path / f"{reader}.txt"
    path.write_bytes(GOOD_LINE[reader].encode() + b"\xff\xfe bad \xc3\n")
    with pytest.raises(InputError) as caught:
        READERS[reader](path)
    check_one_line(caught.value, path, 2, "undecodable bytes")


@pytest.mark.parametrize("reader", sorted(READERS))
def test_missing_file_and_directory(tmp_path, reader):
    with pytest.raises(InputError, match="no such file"):
        READERS[reader](tmp_path / "absent.txt")
    with pytest.raises(InputError, match="a directory, not a regular file"):
        READERS[reader](tmp_path)


def test_an_exact_repeat_in_qrels_is_accepted_as_trec_eval_does(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("t1 0 d1 1\nt1 0 d1 1\n")
    assert read_qrels(path) == {"t1": {"d1": 1}}


def test_crlf_bom_and_blank_lines_are_accepted(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"\xef\xbb\xbft1 0 d1 2\r\n\r\nt1 0 d2 0\r\n")
    assert read_qrels(path) == {"t1": {"d1": 2, "d2": 0}}


def test_cli_reports_bad_qrels_in_one_line(tmp_path, capsys):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "x.run"
    qrels.write_text("t1 0 d1 1\nt1 0 d2 x\n")
    run.write_text("t1 Q0 d1 1 1.0 r\n")
    assert main(["evaluate", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert err == f"tarsim: error: {qrels}:2: relevance is not an integer: 'x'\n"


# Round trips -------------------------------------------------------------------------------------------


def test_qrels_run_topics_decisions_sentence_qrels_round_trip(tmp_path):
    qrels = {"t2": {"b": 0, "a": 3}, "t1": {"z": 1}}
    write_qrels(tmp_path / "q", qrels)
    assert read_qrels(tmp_path / "q") == qrels
    run = {"t1": {"a": 0.1, "b": 1e-17, "c": 0.1}, "t2": {"x": -3.25}}
    write_run(tmp_path / "r", run)
    assert read_run(tmp_path / "r") == run
    lines = (tmp_path / "r").read_text().splitlines()
    assert [line.split()[2] for line in lines[:3]] == ["c", "a", "b"]  # score desc, ties docid desc
    topics = {"b": "second query", "a": "first query"}
    write_topics(tmp_path / "t", topics)
    assert list(read_topics(tmp_path / "t").items()) == list(topics.items())
    decisions = {"t1": {"a": 1, "b": 0}}
    write_decisions(tmp_path / "d", decisions)
    assert read_decisions(tmp_path / "d") == decisions
    sentences = {"t1": {"a": {0: 1, 3: 0}}}
    write_sentence_qrels(tmp_path / "s", sentences)
    assert read_sentence_qrels(tmp_path / "s") == sentences


def test_large_run_round_trip_keeps_topics_and_scores(tmp_path):
    run = {f"q{t}": {f"d{(t * 7 + i) % 997}": float((i * 37) % 101) / 7 for i in range(300)} for t in range(40)}
    write_run(tmp_path / "big.run", run)
    assert read_run(tmp_path / "big.run") == run


@pytest.mark.parametrize("name", ["docs.jsonl", "docs.jsonl.gz"])
def test_collection_round_trip_plain_and_gzip(tmp_path, name):
    documents = [
        Document("d1", "Body text.", "Title", None),
        Document("d2", "Unicode: naïve café – ✓", "", ("First sentence.", "Second one.")),
    ]
    path = tmp_path / name
    write_collection(path, documents)
    if name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            assert handle.readline().startswith('{"docid": "d1"')
    assert list(read_collection(path)) == documents
    assert list(iter_documents(path)) == documents
    collection = read_collection(path)
    assert collection.docids == ["d1", "d2"] and collection.position("d2") == 1 and "d1" in collection


def test_gzip_collection_errors_name_the_line(tmp_path):
    path = tmp_path / "docs.jsonl.gz"
    with gzip.open(path, "wb") as handle:
        handle.write(b'{"docid": "d1", "text": "a"}\n{"docid": "d1", "text": "b"}\n')
    with pytest.raises(InputError) as caught:
        read_collection(path)
    check_one_line(caught.value, path, 2, "duplicate docid")
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(InputError, match="cannot read"):
        read_collection(broken)


def write_dataset(directory: Path, topics_text: str) -> None:
    directory.mkdir()
    write_collection(directory / "docs.jsonl.gz", [Document("d1", "a"), Document("d2", "b")])
    (directory / "qrels.txt").write_text("t1 0 d1 1\nt2 0 d2 1\n")
    (directory / "topics.tsv").write_text(topics_text)


def test_load_dataset_warns_about_qrels_topics_absent_from_topics(tmp_path):
    write_dataset(tmp_path / "data", "t1\tquery one\n")
    with pytest.warns(InputWarning, match=r"1 qrels topic\(s\) absent from the topics file: t2"):
        dataset = load_dataset(tmp_path / "data")
    assert len(dataset.collection) == 2 and set(dataset.qrels) == {"t1", "t2"} and dataset.name == "data"


def test_load_dataset_without_warning_when_topics_cover_qrels(tmp_path):
    write_dataset(tmp_path / "data", "t1\tquery one\nt2\tquery two\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_dataset(tmp_path / "data")


def test_load_dataset_missing_parts(tmp_path):
    with pytest.raises(InputError, match="collection directory does not exist"):
        load_dataset(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no docs\.jsonl or docs\.jsonl\.gz"):
        load_dataset(tmp_path / "empty")


# ASReview CSV ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("csv_name", "review"), [("Triptans", "Cohen_2006_Triptans"), ("Kitchenham_2010", "Kitchenham_2010")]
)
def test_asreview_csv_import_matches_normalised_copy(csv_name, review):
    csv_path = DATASETS / "raw" / "asreview_csv" / f"{csv_name}.csv"
    base = DATASETS / "srd" / review
    if not csv_path.exists() or not base.exists():
        pytest.skip(f"{csv_path} or {base} is absent (the shared datasets are not on this machine)")
    collection, qrels = read_asreview_csv(csv_path, topic=review)
    normalised = read_collection(base / "docs.jsonl")
    reference = read_qrels(base / "qrels.txt")[review]
    assert len(collection) == len(normalised)
    # Same records in the same order (the srd copy uses PubMed ids as docids for the Cohen reviews and
    # keeps trailing white space of some abstracts, which the importer strips).
    for imported, copy in zip(collection, normalised, strict=True):
        assert imported.title == copy.title.strip()
        assert imported.text == copy.text.strip()
        assert qrels[review][imported.docid] == reference[copy.docid]
    assert sum(qrels[review].values()) == sum(reference.values()) > 0


CSV_CASES = [
    ("record_id,title,abstract\n1,a,b\n", 1, "missing column(s) label_included"),
    ("title,abstract,label_included\na,b,maybe\n", 2, "label_included is not 0 or 1"),
    ("title,abstract,label_included\na,b,3\n", 2, "label_included is not 0 or 1"),
    ("record_id,title,abstract,label_included\n1,a,b,0\n1,c,d,1\n", 3, "duplicate record_id '1'"),
    ("title,abstract,label_included\na,b,0,extra\n", 2, "more fields than the 3 header columns"),
    ('title,abstract,label_included\na,"multi\nline",0\nc,d,x\n', 4, "label_included is not 0 or 1"),
    ("title,abstract,label_included\na,b,1\nshort\n", 3, "has no label (the line has 1 of the 3 header columns"),
    (
        'title,abstract,label_included\na,b,1\n"c,d,0\ne,f,1\n',
        3,
        "a quote opened here is not closed (the record runs on",
    ),
    ('title,abstract,label_included\na,b,1\nc,"multi\nline"\n', 3, "has no label (the line has 2 of the 3 header"),
    ("", None, "empty file"),
]


@pytest.mark.parametrize(("content", "line", "fragment"), CSV_CASES)
def test_asreview_csv_bad_input(tmp_path, content, line, fragment):
    path = tmp_path / "screening.csv"
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        read_asreview_csv(path)
    check_one_line(caught.value, path, line, fragment)


def test_asreview_csv_undecodable_and_defaults(tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes(b"title,abstract,label_included\na,b,1\nc,\xff,0\n")
    with pytest.raises(InputError) as caught:
        read_asreview_csv(path)
    check_one_line(caught.value, path, 3, "undecodable bytes")
    path.write_text("title,abstract,label_included\nFirst, one ,1\nSecond,,0.0\n")
    collection, qrels = read_asreview_csv(path)
    assert collection.docids == ["0", "1"] and qrels == {"s": {"0": 1, "1": 0}}  # row numbers from 0, as ASReview
    assert collection.get("0").text == "one"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("title,label_included\na trial,1\nb trial,0\n", "no abstract column"),
        ("title,abstract,label_included\na trial,,1\nb trial, ,0\n", "every abstract is empty"),
    ],
)
def test_a_file_screened_by_titles_alone_says_so(tmp_path, content, said):
    """Accepted as ASReview accepts it, with one warning line (a trial's finding: it passed in silence)."""
    path = tmp_path / "titles.csv"
    path.write_text(content)
    with pytest.warns(InputWarning, match=f"{said}: the records are screened by their titles alone"):
        collection, _ = read_asreview_csv(path)
    assert [document.title for document in collection] == ["a trial", "b trial"]
