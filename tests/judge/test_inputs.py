"""Documents, topics and the pool as the judging app reads them (cranfield.io.documents), and the
``cranfield judge`` commands' errors: one line naming file:line:field, exit 2."""

from __future__ import annotations

import gzip
import io

import pytest

from cranfield import datasets
from cranfield.cli import main
from cranfield.errors import InputError
from cranfield.io.documents import Document, read_documents, read_topics

from .conftest import write_inputs


def test_the_shipped_cranfield_documents_and_queries():
    data = datasets.cranfield()
    docs = read_documents(data["documents"])
    topics = read_topics(data["topics"])
    assert len(docs) == 1400 and len(topics) == 225
    assert docs["1"].title.startswith("experimental investigation of the aerodynamics of a")
    assert docs["1400"].text.endswith(".")
    assert topics["1"].title.startswith("what similarity laws must be obeyed")
    qrels_topics = {line.split()[0] for line in data["qrels"].read_text().splitlines()}
    assert qrels_topics <= set(topics)  # the queries are renumbered 1..225 as the judgments number them
    with gzip.open(data["documents"], "rt") as handle:
        assert handle.read().count("\n.I ") == 1399


def test_tsv_and_trec_text_documents(tmp_path):
    tsv = tmp_path / "collection.tsv"
    tsv.write_text("0\tThe presence of <i>communication</i>\n1\tA title\tits text\n")
    assert read_documents(tsv) == {"0": Document("0", "", "The presence of <i>communication</i>"),
                                   "1": Document("1", "A title", "its text")}
    trec = tmp_path / "docs.trec"
    trec.write_text("<DOC>\n<DOCNO> FT911-1 </DOCNO>\n<HEADLINE>Big <b>news</b></HEADLINE>\n<TEXT>\nLine one.\n"
                    "</TEXT>\n</DOC>\n<DOC>\n<DOCNO>x2</DOCNO>\nplain body\n</DOC>\n")
    assert read_documents(trec) == {"FT911-1": Document("FT911-1", "Big <b>news</b>", "Line one."),
                                    "x2": Document("x2", "", "plain body")}


def test_trec_topics():
    text = (b"<top>\n<num> Number: 401\n<title> foreign minorities, Germany\n\n<desc> Description:\nWhat language\n"
            b"and cultural differences?\n\n<narr> Narrative:\nA relevant document\n</top>\n\n<top>\n<num>402</num>\n"
            b"<title>behavioral genetics</title>\n</top>\n")
    topics = read_topics(io.BytesIO(text), name="t.txt")
    assert topics["401"].title == "foreign minorities, Germany"
    assert topics["401"].description == "What language and cultural differences?"
    assert topics["401"].narrative == "A relevant document"
    assert topics["402"].title == "behavioral genetics" and topics["402"].description == ""


@pytest.mark.parametrize("reader, name, text, where", [
    (read_documents, "d.jsonl", '{"id": "a", "text": "x"}\n{"id": "b"}\n', "d.jsonl:2: field text"),
    (read_documents, "d.jsonl", '{"id": "a", "text": "x"}\n{"id": "a b", "text": "y"}\n', "d.jsonl:2: field id"),
    (read_documents, "d.jsonl", '{"id": "a", "text": 3}\n', "d.jsonl:1: field text"),
    (read_documents, "d.jsonl", '{"id": "a", "text": "x"}\n\n{"id": "a", "text": "y"}\n', "d.jsonl:3: field id"),
    (read_documents, "d.jsonl", '{"id": "a", "text": "x"\n', "d.jsonl:1: "),
    (read_documents, "d.jsonl", '["a"]\n', "d.jsonl:1: "),
    (read_documents, "cran", ".I 1\n.T\nt\n.X\nq\n", "cran:4: "),
    (read_documents, "cran", "hello\n", "cran:1: "),
    (read_documents, "cran", ".I\n.W\nt\n", "cran:1: field I"),
    (read_documents, "c.tsv", "1\ta\n2\n", "c.tsv:2: "),
    (read_documents, "c.tsv", "1 2\ta\n", "c.tsv:1: field id"),
    (read_documents, "d.trec", "<DOC>\n<TEXT>a</TEXT>\n</DOC>\n", "d.trec:1: field DOCNO"),
    (read_documents, "d.trec", "<DOC>\n<DOCNO>1</DOCNO>\n<DOC>\n", "d.trec:3: field DOC"),
    (read_documents, "d.trec", "<DOC>\n<DOCNO>1</DOCNO>\n", "d.trec:2: field DOC"),
    (read_topics, "t.jsonl", '{"id": "q1"}\n', "t.jsonl:1: field title"),
    (read_topics, "t.txt", "<top>\n<num> 1\n<title> a\n</top>\n<top>\n<num> 1\n<title> b\n</top>\n", "t.txt:5: field id"),
    (read_topics, "t.txt", "<top>\n<num> 1\n<title> a\n", "t.txt:3: field top"),
    (read_topics, "t.txt", "<top>\n<title> a\n</top>\n", "t.txt:1: field num"),
    (read_topics, "t.txt", "<title> a\n", "t.txt:1: "),
])
def test_errors_name_file_line_field(tmp_path, reader, name, text, where):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as error:
        reader(path)
    assert str(error.value).startswith(str(tmp_path / where)), str(error.value)


def test_documents_are_text_even_with_markup(tmp_path):
    path = tmp_path / "d.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"id": 7, "text": "<script>alert(1)</script>", "title": "<b>t</b>"}\n'))
    assert read_documents(path)["7"].text == "<script>alert(1)</script>"


def test_serve_errors_are_one_line(tmp_path, capsys):
    paths = write_inputs(tmp_path)
    paths["pool"].write_text("t1 0 d1 -1\nt9 0 d2 -1\n")
    args = ["judge", "serve", str(paths["pool"]), "--docs", str(paths["docs"]), "--topics", str(paths["topics"]),
            "--db", str(tmp_path / "j.sqlite")]
    assert main(args) == 2
    assert capsys.readouterr().err.strip() == f"cranfield: error: {paths['pool']}:2: field qid: topic 't9' is not in " \
                                              f"{paths['topics']}"
    paths["pool"].write_text("t1 0 d1 -1\nt1 0 nope -1\n")
    assert main(args) == 2
    assert f"{paths['pool']}:2: field docno: document 'nope'" in capsys.readouterr().err
    paths["pool"].write_text("t1 0 d1 -1\nt1 0 d1 -1\n")
    assert main(args) == 2
    assert f"{paths['pool']}:2: field docno: query 't1', document 'd1' is pooled twice" in capsys.readouterr().err
    paths["pool"].write_text("t1 0 d1 -1\n")
    assert main(args[:-2] + ["--db", str(tmp_path / "no" / "j.sqlite")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(args + ["--scale", "0=No,x=Yes"]) == 2
    assert "--scale" in capsys.readouterr().err


def test_assessor_add_and_export_commands(tmp_path, capsys):
    db = str(tmp_path / "j.sqlite")
    assert main(["judge", "assessor", "add", db, "alice"]) == 2
    assert "no such database" in capsys.readouterr().err
    from cranfield.judge.app import prepare

    paths = write_inputs(tmp_path)
    prepare(paths["pool"], paths["docs"], paths["topics"], db).db.close()
    assert main(["judge", "assessor", "add", db, "alice", "--url", "http://judge.example:80/"]) == 0
    url = capsys.readouterr().out.strip()
    assert url.startswith("http://judge.example:80/judge#token=") and len(url.split("=")[1]) >= 32
    assert main(["judge", "assessor", "add", db, "alice"]) == 2
    assert "exists already" in capsys.readouterr().err
    assert main(["judge", "assessor", "add", db, "bo b"]) == 2
    assert main(["judge", "export", db, "-o", db]) == 2  # never over the database
    assert "input" in capsys.readouterr().err
    assert main(["judge", "export", db, "-o", str(tmp_path / "q.txt"), "--times", str(tmp_path / "q.txt")]) == 2
    assert "same file" in capsys.readouterr().err
    assert main(["judge", "export", db, "-o", str(tmp_path / "q.txt")]) == 0
    assert (tmp_path / "q.txt").read_text() == ""


def test_judge_is_not_imported_by_the_package_or_trec_eval():
    import subprocess
    import sys

    code = ("import sys, cranfield, cranfield.cli; from cranfield.cli import main; "
            "main(['trec_eval', '--help']) if False else None; "
            "print(sorted(m for m in sys.modules if m.startswith(('starlette', 'uvicorn', 'psycopg', 'cranfield.judge'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_port_in_use_is_a_usage_error(tmp_path, capsys):
    import socket

    paths = write_inputs(tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["judge", "serve", str(paths["pool"]), "--docs", str(paths["docs"]), "--topics",
                     str(paths["topics"]), "--db", str(tmp_path / "j.sqlite"), "--port", str(port)]) == 2
    assert f"--port {port}: cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
