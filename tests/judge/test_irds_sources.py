"""Documents and topics from an ir_datasets dataset (``--docs irds:cranfield``): the docstore gives
the same documents as the shipped Cranfield file, fetching only those asked for. ir_datasets reads
its cache folder (IR_DATASETS_HOME/cranfield/docs.txt, queries.txt), so nothing is downloaded; in a
subprocess because ir_datasets fixes its home folder when imported."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cranfield

SCRIPT = r"""
import sys
from cranfield.io.documents import read_documents, read_topics
shipped = read_documents(sys.argv[1])
ids = ["1", "486", "1400"]
docs = read_documents("irds:cranfield", ids=ids)
assert sorted(docs) == sorted(ids), sorted(docs)
for i in ids:
    assert docs[i].text == shipped[i].text, (i, docs[i].text[:80], shipped[i].text[:80])
    assert docs[i].title == shipped[i].title, (i, docs[i].title, shipped[i].title)
every = read_documents("irds:cranfield")
assert len(every) == 1400
topics = read_topics("irds:cranfield")
assert len(topics) == 225 and all(t.title for t in topics.values())
print("ok", len(every), len(topics))
"""


def test_ir_datasets_documents_and_topics(tmp_path):
    pytest.importorskip("ir_datasets")
    data = Path(cranfield.__file__).parent / "data" / "cranfield"
    home = tmp_path / "irds" / "cranfield"
    home.mkdir(parents=True)
    (home / "docs.txt").write_bytes(gzip.decompress((data / "cran.all.1400.gz").read_bytes()))
    (home / "queries.txt").write_bytes((data / "cran.qry").read_bytes())
    env = {**os.environ, "IR_DATASETS_HOME": str(tmp_path / "irds"), "PYTHONPATH": str(Path(cranfield.__file__).parents[1]),
           "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}  # any download would fail
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(data / "cran.all.1400.gz")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["ok", "1400", "225"]


def test_irds_without_the_package_gives_an_install_hint(monkeypatch):
    from cranfield.errors import UsageError
    from cranfield.io.documents import read_documents

    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    with pytest.raises(UsageError, match="needs the ir_datasets package"):
        read_documents("irds:cranfield", ids=["1"])
