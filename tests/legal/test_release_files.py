"""The PD and bBSARD loaders on the files as released: the real question files in ../shared (skipped where absent),
the corpora (not here) on small files in the released layouts (tests/fixtures/pd_release, bBSARD written below)."""

from __future__ import annotations

import csv
import json
import shutil
import warnings
import zipfile
from pathlib import Path

import pytest

from conftest import shared_dataset
from tarsim.cli import main
from tarsim.errors import InputError, InputWarning
from tarsim.legal import load_bbsard, load_pd
from tarsim.legal.bbsard import read_questions, release_files
from tarsim.legal.pd import read_pd_queries

PD_FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pd_release"


def one_error_line(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("tarsim: error:") and "Traceback" not in lines[0]
    return lines[0]


# ---------------------------------------------------------------- PD


def test_real_pd_queries_file_loads_with_the_release_counts() -> None:
    path = shared_dataset("raw", "pd", "queries_and_targets.csv")
    queries = read_pd_queries(path)
    assert queries.rows == 543 and len(queries.topics) == 170
    assert len({gold for judged in queries.qrels.values() for gold in judged}) == 390
    assert sum(len(judged) for judged in queries.qrels.values()) == 543  # no (query, gold) row repeated
    assert list(queries.topics) == [str(i) for i in range(170)]
    assert queries.topics["0"] == "failure to redact lay opinions from defendant's interrogation"
    assert "1584" in queries.qrels["0"]


@pytest.mark.filterwarnings("error::tarsim.errors.InputWarning")
def test_pd_corpus_read_from_the_two_zips_as_released() -> None:
    """The release's data/ folder (fixture): queries_and_targets.csv, corpus_1.zip and corpus_2.zip, read directly;
    given the repository root, its data/ is used. Ids as integers: the first zip writes them as strings."""
    bench = load_pd(PD_FIXTURE)
    assert bench.collection.docids == ["0", "1", "2", "3", "4", "5"]
    assert bench.qrels == {"0": {"0": 1}, "1": {"3": 1, "4": 1}, "2": {"5": 1}}
    assert bench.splits == {"test": ["0", "1", "2"]} and bench.preset == "pd"
    assert bench.topics["1"] == "ineffective assistance failing to object to hearsay"


def test_pd_corpus_jsonl_concatenated_as_the_readme_does_gives_the_same_benchmark(tmp_path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(PD_FIXTURE / "data" / "queries_and_targets.csv", folder)
    with (folder / "corpus.jsonl").open(
        "wb"
    ) as out:  # unzip corpus_1.zip && unzip corpus_2.zip && cat ... > corpus.jsonl
        for name in ("corpus_1", "corpus_2"):
            with zipfile.ZipFile(PD_FIXTURE / "data" / f"{name}.zip") as archive:
                out.write(archive.read(f"{name}.jsonl"))
    from_jsonl, from_zips = load_pd(folder), load_pd(PD_FIXTURE / "data")
    assert from_jsonl.collection.docids == from_zips.collection.docids
    assert [d.text for d in from_jsonl.collection] == [d.text for d in from_zips.collection]
    assert from_jsonl.qrels == from_zips.qrels and from_jsonl.topics == from_zips.topics


def test_the_earlier_three_csv_layout_is_not_read(tmp_path, capsys) -> None:
    """queries.csv / paragraphs.csv / judgments.csv was a guess, never a release: such a folder is an error."""
    for name, header in (("queries.csv", "query_id,query"), ("paragraphs.csv", "paragraph_id,text"),
                         ("judgments.csv", "query_id,paragraph_id,label")):  # fmt: skip
        (tmp_path / name).write_text(header + "\n")
    assert main(["bench", "pd", "--data", str(tmp_path)]) == 2
    assert "queries_and_targets.csv: no such file" in one_error_line(capsys)


def copy_fixture(tmp_path: Path) -> Path:
    target = tmp_path / "pd"
    shutil.copytree(PD_FIXTURE / "data", target)
    return target


def rewrite_queries(folder: Path, edit) -> None:
    path = folder / "queries_and_targets.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    edit(rows)
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: rows[2].__setitem__(1, "  "), "queries_and_targets.csv:3: query 1 has an empty query text"),
        (lambda rows: rows[3].__setitem__(1, "other"), "queries_and_targets.csv:4: query 1 has a different text"),
        (lambda rows: rows[4].__setitem__(2, "x9"), "queries_and_targets.csv:7: gold_idx must be an integer, got 'x9'"),
        (lambda rows: rows[1].__setitem__(2, "77"), "queries_and_targets.csv:2: gold paragraph 77 is absent from the"),
    ],
)
def test_bad_pd_rows_get_one_line_naming_file_and_line(tmp_path, capsys, edit, message) -> None:
    """Row 4 holds a two-line paragraph, so the next row starts on line 7 of the file."""
    folder = copy_fixture(tmp_path)
    rewrite_queries(folder, edit)
    assert main(["bench", "pd", "--data", str(folder)]) == 2
    assert message in one_error_line(capsys)


def test_gold_paragraph_text_differing_from_the_corpus_is_warned_about(tmp_path) -> None:
    """The queries file repeats each gold paragraph's text: compared (white space aside) with the corpus paragraph
    of the same id, the only check that the two files' ids line up. Line 7 is query 2's row."""
    folder = copy_fixture(tmp_path)
    rewrite_queries(folder, lambda rows: rows[4].__setitem__(3, "another paragraph"))
    with pytest.warns(InputWarning, match=r"queries_and_targets\.csv:7: 1 of 4 gold paragraphs differ .* \(first: 5\)"):
        load_pd(folder)
    rewrite_queries(folder, lambda rows: rows[4].__setitem__(3, "  The sentence is excessive given the\n mitigating "
                                                                "factors, including [...]'s age. "))  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_pd(folder)


def test_bad_pd_corpus_line_is_named_inside_its_zip(tmp_path) -> None:
    folder = copy_fixture(tmp_path)
    with zipfile.ZipFile(folder / "corpus_2.zip", "w") as archive:
        archive.writestr("corpus_2.jsonl", json.dumps({"id": 3, "contents": "x"}) + "\n" + '{"id": 4}\n')
    with pytest.raises(InputError, match=r"corpus_2\.zip:corpus_2\.jsonl:2: missing key\(s\) contents$"):
        load_pd(folder)
    with zipfile.ZipFile(folder / "corpus_2.zip", "w") as archive:  # a zip made on macOS
        archive.writestr("__MACOSX/._corpus_2.jsonl", b"\x00\x05\x16\x07 not JSON")
        archive.writestr("corpus_2/._corpus_2.jsonl", b"\x00\x05\x16\x07 not JSON")
        archive.writestr("corpus_2/corpus_2.jsonl", "".join(
            json.dumps({"id": i, "contents": f"paragraph {i}"}) + "\n" for i in (3, 4, 5)))  # fmt: skip
    with pytest.warns(InputWarning, match="3 of 4 gold paragraphs differ"):
        assert load_pd(folder).collection.docids == ["0", "1", "2", "3", "4", "5"]
    (folder / "corpus_2.zip").unlink()
    with pytest.raises(InputError, match=r"no corpus\.jsonl and no corpus_2\.zip"):
        load_pd(folder)


def test_bench_pd_reports_the_paper_and_the_release_evaluator_apart(tmp_path, capsys) -> None:
    out = tmp_path / "pd.json"
    assert main(["bench", "pd", "--data", str(PD_FIXTURE), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Recall(hit)@5" in text and "ST-Recall@5" in text and "InformationRetrievalEvaluator" in text
    row = json.loads(out.read_text())["pd"][0]
    assert row["evaluator"]["Hit@5"] == row["summary"]["Success@5"]  # the paper's recall@5, two ways
    assert set(row["evaluator"]) >= {"Hit@1", "ST-Recall@5", "MRR@10", "nDCG@10", "MAP@100", "nDCG@5"}


# ---------------------------------------------------------------- bBSARD


QUESTION_FILES = {
    ("dutch", "du_train_T0_filtered.csv"): (886, 5784),
    ("dutch", "du_test_T0_filtered.csv"): (222, 1059),
    ("french", "fr_train_filtered.csv"): (886, 5784),
    ("french", "fr_test_filtered.csv"): (222, 1059),
}


@pytest.mark.parametrize(("where", "counts"), list(QUESTION_FILES.items()))
def test_real_bbsard_question_files_load(where, counts) -> None:
    """Question and (question, article) counts; one test question (274) lists article 1102 twice: counted once,
    with a warning naming its line (1,060 listed, 1,059 distinct)."""
    path = shared_dataset("raw", "bbsard_github", *where)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        questions = read_questions(path)
    assert (len(questions.topics), sum(len(j) for j in questions.qrels.values())) == counts
    repeated = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
    if "test" in where[1]:
        assert len(repeated) == 1 and "question 274 lists article 1102 more than once" in repeated[0]
        assert questions.qrels["274"] == dict.fromkeys(["931", "932", "933", "1101", "1102", "1103"], 1)
    else:
        assert not repeated


@pytest.mark.filterwarnings("ignore::tarsim.errors.InputWarning")
def test_real_bbsard_languages_share_ids_and_judgments() -> None:
    root = shared_dataset("raw", "bbsard_github")
    for split in ("train", "test"):
        fr = read_questions(root / "french" / f"fr_{split}_filtered.csv")
        nl = read_questions(root / "dutch" / f"du_{split}_T0_filtered.csv")
        assert list(fr.topics) == list(nl.topics) and fr.qrels == nl.qrels
        assert fr.topics != nl.topics  # the texts are translations


ARTICLES = ["Le bail de résidence principale.", "Le locataire résilie le bail.", "Le contrat de travail prend fin."]
QUESTIONS = {
    "train": [["1", "Le bail ?", "1"]],
    "test": [["2", "Résilier le bail ?", "2"], ["3", "Le contrat ?", "3,1"]],
}
HEADER = ["id", "category", "subcategory", "question", "extra_description", "article_ids"]


def write(path: Path, header: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([header, *rows])


def write_questions(path: Path, split: str) -> None:
    write(path, HEADER, [[qid, "Famille", "Logement", text, "", ids] for qid, text, ids in QUESTIONS[split]])


def write_github(root: Path, ids: list[str] | None = None) -> Path:
    """The GitHub release's data/: french/ and dutch/ with their article and question files."""
    for folder, prefix, suffix in (("french", "fr", ""), ("dutch", "du", "_T0")):
        base = root / "data" / folder
        write(base / f"{prefix}_articles_new_filtered.csv", ["id", "article"],
              [[docid, text] for docid, text in zip(ids or ["1", "2", "3"], ARTICLES, strict=True)])  # fmt: skip
        for split in ("train", "test"):
            write_questions(base / f"{prefix}_{split}{suffix}_filtered.csv", split)
    return root


def write_huggingface(root: Path) -> Path:
    for language in ("fr", "nl"):
        write(root / language / "corpus.csv", ["id", "article"], [[str(i), t] for i, t in enumerate(ARTICLES, 1)])
        for split in ("train", "test"):
            write_questions(root / language / f"{split}.csv", split)
    return root


@pytest.mark.parametrize("language", ["fr", "nl"])
def test_bbsard_github_and_huggingface_layouts_give_the_same_benchmark(tmp_path, language) -> None:
    github = load_bbsard(write_github(tmp_path / "gh"), language)
    hf = load_bbsard(write_huggingface(tmp_path / "hf"), language)
    assert release_files(tmp_path / "gh", language).layout == "github"
    assert release_files(tmp_path / "hf", language).layout == "huggingface"
    assert github.collection.docids == hf.collection.docids == ["1", "2", "3"]
    assert github.qrels == hf.qrels == {"1": {"1": 1}, "2": {"2": 1}, "3": {"3": 1, "1": 1}}
    assert github.splits == hf.splits == {"train": ["1"], "test": ["2", "3"]}
    assert load_bbsard(tmp_path / "gh" / "data", language).qrels == github.qrels  # data/ itself also works


def test_bbsard_ids_not_in_row_order_are_warned_about(tmp_path) -> None:
    """The release code's BM25 numbers articles by row position (results[i+1]), not by the id column."""
    write_github(tmp_path, ids=["3", "1", "2"])
    with pytest.warns(InputWarning, match="article ids are not 1..N in row order"):
        bench = load_bbsard(tmp_path, "fr")
    assert bench.collection.docids == ["3", "1", "2"]


def test_bbsard_without_either_layout_names_both(tmp_path, capsys) -> None:
    assert main(["bench", "bbsard", "--data", str(tmp_path)]) == 2
    assert "no french/ (GitHub release) or fr/ (Hugging Face release) folder" in one_error_line(capsys)


def test_bench_bbsard_on_the_github_layout(tmp_path, capsys) -> None:
    assert main(["bench", "bbsard", "--data", str(write_github(tmp_path))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert next(line for line in out if line.startswith("measure")).split() == ["measure", "fr", "nl"]


def test_convert_pd_release_round_trips(tmp_path) -> None:
    """`tarsim data convert pd` on the release's folder writes a benchmark directory that loads back the same."""
    assert main(["data", "convert", "pd", str(PD_FIXTURE), str(tmp_path / "out")]) == 0
    from tarsim.legal import load_benchmark

    converted, original = load_benchmark(tmp_path / "out"), load_pd(PD_FIXTURE)
    assert converted.qrels == original.qrels and converted.topics == original.topics
    assert converted.collection.docids == original.collection.docids and converted.preset == "pd"


@pytest.mark.parametrize(("language", "words"), [("fr", "résilier résilie résiliation"), ("nl", "opzeggen opzegging")])
def test_bbsard_preset_keeps_surface_forms_as_the_release_code(language, words) -> None:
    """The release code's default preprocessing (no --lem) keeps each word as written; the preset used to stem,
    which conflated these forms. Stop words, punctuation and tokens with digits still go."""
    from tarsim.legal import get_preset
    from tarsim.retrieval import get_analyzer

    analyzer = get_analyzer(get_preset(f"bbsard-{language}").analyzer)
    assert analyzer.stemmer is None
    assert analyzer.tokenize([words + " 2020 12bis !"])[0] == words.split()
    stop = {"fr": "le", "nl": "de"}[language]
    assert analyzer.tokenize([f"{stop} {words}"])[0] == words.split()
