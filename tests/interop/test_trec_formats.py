"""TREC SGML collections, one-document-per-file folders and archives, TREC topic files, and HARD 2004 passage
judgments turned into sentence qrels, on small files written in those formats."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile

import pytest

from tarsim.cli import main
from tarsim.data.collection import Document
from tarsim.data.qrels import read_sentence_qrels
from tarsim.datasets import load_dataset
from tarsim.errors import InputError
from tarsim.interop.passages import passage_sentence_qrels, read_passages, sentence_spans
from tarsim.interop.trec import read_trec_documents, read_trec_topics

SGML = """<DOC>
<DOCNO> FT911-1 </DOCNO>
<HEADLINE>Oil prices rise</HEADLINE>
<TEXT>
Oil prices rose sharply today. Traders cited <P>supply</P> worries.
</TEXT>
</DOC>
<DOC>
<DOCNO>FT911-2</DOCNO>
<TITLE>Wheat</TITLE>
<TEXT>Wheat harvest was good.</TEXT>
<TEXT>Prices fell.</TEXT>
</DOC>
"""

TOPICS = """<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal activity.

<narr> Narrative:
A relevant document must as a minimum identify the organization.
</top>

<top>
<num> Number: 302 <title> Topic: Poliomyelitis and Post-Polio
<desc> Description: Is the disease of poliomyelitis (polio) under control?
</top>
"""


def test_sgml_documents_docno_title_and_text(tmp_path):
    path = tmp_path / "ft911.sgml"
    path.write_text(SGML)
    collection = read_trec_documents(path)
    assert collection.docids == ["FT911-1", "FT911-2"]
    first = collection.get("FT911-1")
    assert first.title == "Oil prices rise"
    assert "Traders cited    supply     worries." in first.text  # tags blanked, offsets kept
    assert collection.get("FT911-2").text == "Wheat harvest was good.\n\nPrices fell."


def test_gzip_and_a_folder_of_sgml_files(tmp_path):
    folder = tmp_path / "disk"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.gz").write_bytes(gzip.compress(SGML.encode()))
    (folder / "b").write_text("<DOC><DOCNO>X1</DOCNO><TEXT>Alone.</TEXT></DOC>")
    assert sorted(read_trec_documents(folder).docids) == ["FT911-1", "FT911-2", "X1"]
    assert read_trec_documents(folder / "sub" / "a.gz").docids == ["FT911-1", "FT911-2"]


def test_one_document_per_file_in_a_folder_tar_and_zip(tmp_path):
    texts = {"docs/100.txt": "First email body.", "docs/nested/200.txt": "Second one."}
    folder = tmp_path / "folder"
    for name, text in texts.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    archive = tmp_path / "corpus.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, text in texts.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    zipped = tmp_path / "corpus.zip"
    with zipfile.ZipFile(zipped, "w") as handle:
        for name, text in texts.items():
            handle.writestr(name, text)
    for source in (folder, archive, zipped):
        collection = read_trec_documents(source)
        assert collection.docids == ["100.txt", "200.txt"], source  # the base name, as HiCAL names documents
        assert collection.get("200.txt").text == "Second one."


def test_a_doc_without_docno_is_reported_at_its_line(tmp_path):
    path = tmp_path / "bad.sgml"
    path.write_text("\n\n<DOC><TEXT>no id</TEXT></DOC>\n")
    with pytest.raises(InputError, match=r"bad.sgml:3: <DOC> without a <DOCNO>"):
        read_trec_documents(path)


def test_topic_file_numbers_and_titles(tmp_path):
    path = tmp_path / "topics.301-302"
    path.write_text(TOPICS)
    assert read_trec_topics(path) == {"301": "International Organized Crime", "302": "Poliomyelitis and Post-Polio"}
    path.write_text("<top><num> Number: 9 <desc> no title </top>")
    with pytest.raises(InputError, match="topic 9 has no <title> text"):
        read_trec_topics(path)


def test_convert_trec_writes_a_collection(tmp_path, capsys):
    (tmp_path / "ft.sgml").write_text(SGML)
    (tmp_path / "qrels").write_text("301 0 FT911-1 1\n301 0 FT911-2 0\n302 0 FT911-2 1\n")
    (tmp_path / "topics").write_text(TOPICS)
    out = tmp_path / "collection"
    code = main(
        [
            "data",
            "convert",
            "trec",
            str(tmp_path / "ft.sgml"),
            str(out),
            "--qrels",
            str(tmp_path / "qrels"),
            "--topics",
            str(tmp_path / "topics"),
        ]
    )
    assert code == 0
    dataset = load_dataset(out)
    assert dataset.collection.docids == ["FT911-1", "FT911-2"]
    assert dataset.topics == {"301": "International Organized Crime", "302": "Poliomyelitis and Post-Polio"}
    assert dataset.qrels["302"] == {"FT911-2": 1}


def test_convert_trec_without_qrels_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "ft.sgml").write_text(SGML)
    assert main(["data", "convert", "trec", str(tmp_path / "ft.sgml"), str(tmp_path / "out")]) == 2
    assert "--qrels" in capsys.readouterr().err


# ---- passages ------------------------------------------------------------------------------------------------
def test_sentence_spans_are_character_spans_of_the_text():
    document = Document("d", title="A title", text="  First sentence here.\nIt wraps.  Second one?\n\nThird.")
    spans = sentence_spans(document)
    assert spans[0] is None  # the title is not in the text
    pieces = [document.text[start:end] for start, end in spans[1:]]
    assert pieces == ["First sentence here.", "It wraps.", "Second one?", "Third."]


def test_passages_mark_every_overlapping_sentence(tmp_path):
    text = "Alpha one. Beta two. Gamma three."
    # sentence spans in the text: [0, 10) [11, 20) [21, 33); with a title, these are sentences 1, 2, 3
    passages = tmp_path / "passages"
    passages.write_text("T1 d1 15 8\nT1 d2 0 1\nT2 d1 32 1\n")
    collection_dir = tmp_path / "c"
    collection_dir.mkdir()
    from tarsim.data.collection import Collection, write_collection

    write_collection(
        collection_dir / "docs.jsonl",
        Collection([Document("d1", title="Head", text=text), Document("d2", text="Only. Two.")]),
    )
    (collection_dir / "qrels.txt").write_text("T1 0 d1 1\n")
    (collection_dir / "topics.tsv").write_text("T1\tq\n")
    qrels = passage_sentence_qrels(read_passages(passages), load_dataset(collection_dir).collection)
    assert qrels == {"T1": {"d1": {2: 1, 3: 1}, "d2": {0: 1}}, "T2": {"d1": {3: 1}}}
    out = tmp_path / "sentence_qrels.txt"
    assert (
        main(
            [
                "data",
                "sentence-qrels",
                "--passages",
                str(passages),
                "--collection",
                str(collection_dir),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert read_sentence_qrels(out) == qrels
    assert out.read_text().splitlines()[0] == "T1 d1 2 1"


def test_bad_passage_lines_are_reported(tmp_path, capsys):
    passages = tmp_path / "passages"
    passages.write_text("T1 d1 5\n")
    with pytest.raises(InputError, match=r"passages:1: expected 4 columns \(topic docid offset length\)"):
        read_passages(passages)
    passages.write_text("T1 d1 5 0\n")
    with pytest.raises(InputError, match=r"passages:1: .*length > 0"):
        read_passages(passages)
    from tarsim.data.collection import Collection

    with pytest.raises(InputError, match="not in the collection"):
        passage_sentence_qrels({"T1": {"zz": [(0, 1)]}}, Collection([Document("d1", text="x")]))
    with pytest.raises(InputError, match="ends past its text"):
        passage_sentence_qrels({"T1": {"d1": [(0, 5)]}}, Collection([Document("d1", text="x")]))


def test_offsets_into_the_published_text_element_survive_conversion(tmp_path):
    (tmp_path / "ft.sgml").write_text(SGML)
    (tmp_path / "qrels").write_text("301 0 FT911-1 1\n")
    (tmp_path / "topics").write_text(TOPICS)
    out = tmp_path / "collection"
    args = ["--qrels", str(tmp_path / "qrels"), "--topics", str(tmp_path / "topics")]
    assert main(["data", "convert", "trec", str(tmp_path / "ft.sgml"), str(out), *args]) == 0
    element = SGML[SGML.index("<TEXT>") + len("<TEXT>") :]
    offset = element.index("supply")  # counted in the published file, markup included
    (tmp_path / "passages").write_text(f"301 FT911-1 {offset} {len('supply')}\n")
    sentences = tmp_path / "sq.txt"
    command = ["data", "sentence-qrels", "--passages", str(tmp_path / "passages"), "--collection", str(out)]
    assert main([*command, "--out", str(sentences)]) == 0
    # sentence 0 is the headline, 1 "Oil prices rose sharply today.", 2 "Traders cited supply worries."
    assert read_sentence_qrels(sentences) == {"301": {"FT911-1": {2: 1}}}
