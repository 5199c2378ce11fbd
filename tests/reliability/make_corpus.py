"""Write the bad-input corpus under tests/reliability/corpus/ (deterministic; run once, commit).

    python tests/reliability/make_corpus.py

Each file is one hostile (or odd but accepted) input; test_corpus.py holds the table that says
what each must give. Crashes found by the fuzzers (tests/fuzz, scripts/fuzz.py) are added here.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

HERE = Path(__file__).resolve().parent / "corpus"

GOOD_RUN = "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq2 Q0 d1 1 0.5 tag\n"
GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"


def _gzip(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as handle:  # mtime=0: same bytes every time
        handle.write(data)
    return buffer.getvalue()


def _half(data: bytes) -> bytes:
    """Gzip cut in the middle of the compressed stream (varied data: the stream is long)."""
    packed = _gzip(data)
    assert len(packed) > 1000
    return packed[: len(packed) // 2]


def files() -> dict[str, bytes]:
    run, qrels = GOOD_RUN.encode(), GOOD_QRELS.encode()
    big = b"".join(b"q%d Q0 d%d %d %d.%d tag\n" % (q, (q * 7919 + d) % 10007, d, 100 - d, q * d % 97) for q in range(40) for d in range(40))
    return {
        # ---------------------------------------------------------------- good partners
        "good.qrels": qrels,
        "good.run": run,
        # ---------------------------------------------------------------- runs: errors
        "run_5_fields.txt": b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5\n",
        "run_score_text.txt": b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 high tag\n",
        "run_score_nan.txt": b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 NaN tag\n",
        "run_score_minus_inf.txt": b"q1 Q0 d1 1 -inf tag\n",
        "run_score_overflow.txt": b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1e400 tag\n",
        "run_score_decimal_comma.txt": b"q1 Q0 d1 1 2,5 tag\n",
        "run_score_hex.txt": b"q1\tQ0\td1\t1\t0x1A\ttag\n",
        "run_duplicate_doc.txt": b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq1 Q0 d1 3 0.5 tag\n",
        "run_duplicate_doc_ws_variant.txt": b"q1 Q0 d1 1 2.5 tag\n q1\tQ0 d1   2 1.5 tag\n",
        "run_empty.txt": b"",
        "run_only_comments.txt": b"# a comment\n# another\n",
        "run_only_blank_lines.txt": b"\n   \n\t\n\r\n",
        "run_latin1.txt": b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d\xe9 2 1.5 tag\n",
        "run_utf16.txt": GOOD_RUN.encode("utf-16"),
        "run_binary.bin": bytes(range(256)) * 4,
        "run_truncated.gz": _half(big),
        "run_gzip_garbage.gz": b"\x1f\x8b" + bytes(range(50)),
        "run_empty.gz": _gzip(b""),
        # ---------------------------------------------------------------- runs: accepted
        "run_bom.txt": b"\xef\xbb\xbf" + run,
        "run_crlf.txt": run.replace(b"\n", b"\r\n"),
        "run_mixed_whitespace.txt": b"q1 \t Q0\td1   1 2.5\t tag\n\nq1 Q0 d2 2 1.5 tag   \n\tq2 Q0 d1 1 0.5 tag\n",
        "run_unicode_ids.txt": "q\u00fc Q0 d\u00f6c-\u2460 1 2.5 t\u00e4g\nq\u00fc Q0 \u6587\u66f8 2 1.5 t\u00e4g\n".encode(),
        "run_nbsp_inside_id.txt": "# NBSP is not a separator (trec_eval's isspace)\nq1 Q0 d\u00a01 1 2.5 tag\n".encode(),
        "run_enormous_id.txt": b"q1 Q0 " + b"d" * 100_000 + b" 1 2.5 tag\nq1 Q0 d1 2 1.5 tag\n",
        "run_extra_fields.txt": run.replace(b"tag\n", b"tag ignored words\n"),
        "run_gzip_ok.gz": _gzip(run),
        # ---------------------------------------------------------------- qrels
        "qrels_3_fields.txt": b"q1 0 d1 1\nq1 0 d2\n",
        "qrels_5_fields.txt": b"q1 0 d1 1 extra\n",
        "qrels_rel_text.txt": b"q1 0 d1 1\nq1 0 d2 relevant\n",
        "qrels_rel_fraction.txt": b"q1 0 d1 1.5\n",
        "qrels_rel_nan.txt": b"q1 0 d1 1\nq1 0 d2 nan\n",
        "qrels_rel_huge.txt": b"q1 0 d1 99999999999999999999\n",
        "qrels_duplicate.txt": b"q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n",
        "qrels_duplicate_ws_variant.txt": b"q1 0 d1 1\nq1\t0\td1 \t0\n",
        "qrels_empty.txt": b"",
        "qrels_only_comments.txt": b"# nothing here\n",
        "qrels_latin1.txt": b"q1 0 d\xe9 1\n",
        "qrels_truncated.gz": _half(b"".join(b"q%d 0 d%d %d\n" % (q, (q * 7919 + d) % 10007, d % 3) for q in range(40) for d in range(40))),
        "qrels_bom_crlf.txt": b"\xef\xbb\xbf" + qrels.replace(b"\n", b"\r\n"),
        "qrels_unicode_ids.txt": "q\u00fc 0 d\u00f6c-\u2460 1\nq\u00fc 0 \u6587\u66f8 0\n".encode(),
        "qrels_negative_rel.txt": b"q1 0 d1 1\nq1 0 d2 -1\nq2 0 d1 2\n",
        # ---------------------------------------------------------------- classification files
        "cls_score_text.csv": b"y,s\n1,0.9\n0,abc\n",
        "cls_score_missing.csv": b"y,s\n1,0.9\n0,\n",
        "cls_score_inf.csv": b"y,s\n1,0.9\n0,0.1\n1,inf\n",
        "cls_truth_missing.csv": b"y,s\n1,0.9\n,0.1\n",
        "cls_duplicate_column.csv": b"y,s,y\n1,0.9,1\n0,0.1,0\n",
        "cls_latin1.csv": b"y,s\nja,0.9\nnein,0.1\n\xe9t\xe9,0.5\n",
        "cls_binary.csv": bytes(range(256)) * 2,
        "cls_header_latin1.csv": b"y,\xe9\n1,0.9\n",  # found by scripts/fuzz.py (UnicodeDecodeError)
        "cls_header_newline.csv": b'"y\nx",s\n1,0.9\n',  # found by scripts/fuzz.py (two-line message)
        "cls_ragged.csv": b"y,s\n1,0.9\n0,0.1,7\n",
        "cls_empty.csv": b"",
        "cls_header_only.csv": b"y,s\n",
        "cls_one_class.csv": b"y,s\n1,0.9\n1,0.1\n",
        "cls_three_classes.csv": b"y,s\na,0.9\nb,0.1\nc,0.5\n",
        "cls_truncated.csv.gz": _half(b"y,s\n" + b"".join(b"%d,%.6f\n" % (i % 2, (i * 7919 % 1000003) / 1000003) for i in range(1000))),
        "cls_not_parquet.parquet": b"y,s\n1,0.9\n",
        "cls_bom_crlf.csv": b"\xef\xbb\xbfy,s\r\n1,0.9\r\n0,0.1\r\n1,0.4\r\n0,0.6\r\n",
        "cls_unicode_labels.tsv": "y\ts\nj\u00e4\t0.9\nnein\t0.1\nj\u00e4\t0.4\nnein\t0.6\n".encode(),
        # ---------------------------------------------------------------- z-score files (trec_eval -Z)
        "zscore_3_fields.txt": b"q1 P_5 0.5 0.1\nq2 P_5 0.5\n",
        "zscore_nan.txt": b"q1 P_5 0.5 nan\n",
        "zscore_latin1.txt": b"q1 P_5 0.5 0.1\nq\xe9 P_5 0.5 0.1\n",
        "zscore_text.txt": b"q1 P_5 mean sd\n",
    }


def parquet_files(folder: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"y": [1, 0, 1], "s": [0.9, float("nan"), 0.2]}), folder / "cls_nan_score.parquet")
    pq.write_table(pa.table({"y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.4, 0.6]}), folder / "cls_ok.parquet")


def main() -> None:
    HERE.mkdir(exist_ok=True)
    for name, data in files().items():
        (HERE / name).write_bytes(data)
    parquet_files(HERE)
    print(f"wrote {len(files()) + 2} files to {HERE}")


if __name__ == "__main__":
    main()
