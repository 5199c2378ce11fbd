"""``cranfield calibration``, ``clustering`` and ``regression``: values equal the library's,
formats, plots, bad input (exit 2, one line, no traceback)."""

import json

import numpy as np
import pytest

from cranfield.classification import calibration as cal
from cranfield.classification import clustering as cl
from cranfield.classification import regression as rg
from cranfield.cli import main


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 120
    y = rng.integers(0, 2, n)
    prob = np.round(np.clip(0.3 * y + 0.7 * rng.random(n), 0.01, 0.99), 4)
    k = rng.integers(0, 3, n)
    x1, x2 = np.round(rng.normal(size=n) + k, 4), np.round(rng.normal(size=n), 4)
    t = np.round(rng.gamma(2.0, size=n) + 0.1, 4)
    that = np.round(t + rng.normal(scale=0.3, size=n).clip(-0.09, None), 4)
    path = tmp_path_factory.mktemp("ml") / "data.csv"
    lines = ["y,prob,k,x1,x2,t,that,name"] + [f"{a},{b},{c},{d},{e},{f},{g},r{i}" for i, (a, b, c, d, e, f, g) in
                                               enumerate(zip(y, prob, k, x1, x2, t, that))]
    path.write_text("\n".join(lines) + "\n")
    return path, dict(y=y, prob=prob, k=k, X=np.column_stack([x1, x2]), t=t, that=that)


def _json(args, capsys):
    assert main(args + ["--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_calibration_json_equals_library(table, capsys, tmp_path):
    path, d = table
    plot = tmp_path / "rel.png"
    report = _json(["calibration", str(path), "--truth", "y", "--score", "prob", "--bins", "5", "--plot", str(plot),
                    "--bootstrap", "20", "--seed", "3"], capsys)
    m = report["measures"]
    assert m["ece"] == cal.expected_calibration_error(d["y"], d["prob"], n_bins=5)
    assert m["slope"] == cal.calibration_slope(d["y"], d["prob"]).slope
    b = cal.brier_decomposition(d["y"], d["prob"], n_bins=5)
    assert (m["brier"], m["reliability"], m["resolution"]) == (b.brier, b.reliability, b.resolution)
    ci = cal.calibration_bootstrap(d["y"], d["prob"], n_resamples=20, random_state=3, n_bins=5, strategy="uniform")
    assert report["intervals"]["ece"]["low"] == ci.low
    assert report["settings"]["seed"] == 3 and len(report["bins"]) >= 1
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_clustering_and_regression_equal_library(table, capsys, tmp_path):
    path, d = table
    report = _json(["clustering", str(path), "--truth", "y", "--pred", "k", "--features", "x1,x2"], capsys)
    assert report["external"]["adjusted_rand"] == cl.adjusted_rand_score(d["y"], d["k"])
    assert report["external"]["purity"] == cl.purity_score(d["y"], d["k"])
    assert report["internal"]["davies_bouldin"] == cl.davies_bouldin_score(d["X"], d["k"])
    report = _json(["regression", str(path), "--truth", "t", "--pred", "that", "--plot", str(tmp_path / "p.svg"),
                    "--residual-plot", str(tmp_path / "r.png")], capsys)
    assert report["measures"]["r2"] == rg.r2_score(d["t"], d["that"])
    assert report["measures"]["gamma_deviance"] == rg.mean_gamma_deviance(d["t"], d["that"])
    assert (tmp_path / "p.svg").exists() and (tmp_path / "r.png").exists()


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown", "latex"])
def test_formats(table, capsys, fmt):
    path, _ = table
    assert main(["regression", str(path), "--truth", "t", "--pred", "that", "--format", fmt]) == 0
    assert "r2" in capsys.readouterr().out


def test_help_has_examples(capsys):
    for command in ("calibration", "clustering", "regression"):
        assert main([command, "--help"]) == 0
        assert f"cranfield {command} " in capsys.readouterr().out


@pytest.mark.parametrize("args, expected", [
    (["calibration", "{p}", "--truth", "y", "--score", "t"], "field t: expected a probability in [0, 1]"),
    (["calibration", "{p}", "--truth", "y", "--score", "nope"], "no column 'nope'"),
    (["calibration", "{p}", "--truth", "k", "--score", "prob"], "among [0, 1, 2]"),
    (["calibration", "{p}", "--truth", "k", "--score", "prob", "--positive", "1"], "two classes"),
    (["clustering", "{p}", "--truth", "y", "--pred", "name", "--features", "x1"], "clusters"),
    (["clustering", "{p}", "--truth", "y", "--pred", "y"], "same column"),
    (["regression", "{p}", "--truth", "t", "--pred", "name"], "expected a number"),
])
def test_bad_input_is_one_line(table, capsys, args, expected):
    path, _ = table
    assert main([a.format(p=path) for a in args]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("old, new", [
    (["calibration", "{p}", "--label", "y", "--score", "prob"], ["calibration", "{p}", "--truth", "y", "--score", "prob"]),
    (["clustering", "{p}", "--labels-true", "y", "--labels-pred", "k"], ["clustering", "{p}", "--truth", "y", "--pred", "k"]),
    (["regression", "{p}", "--true", "t", "--pred", "that"], ["regression", "{p}", "--truth", "t", "--pred", "that"]),
])
def test_deprecated_spellings_still_work_with_a_warning(table, capsys, old, new):
    """One vocabulary (issue 27): --truth everywhere; the old spellings are hidden aliases."""
    path, _ = table
    assert main([a.format(p=path) for a in new] + ["-f", "json"]) == 0
    expected = capsys.readouterr()
    assert expected.err == ""
    assert main([a.format(p=path) for a in old] + ["-f", "json"]) == 0
    got = capsys.readouterr()
    assert got.out == expected.out and "is deprecated; write --" in got.err
    assert main([a.format(p=path) for a in new[:2]] + ["--help"]) == 0
    assert old[2] not in capsys.readouterr().out  # hidden


def test_missing_truth_names_the_option(table, capsys):
    path, _ = table
    assert main(["calibration", str(path), "--score", "prob"]) == 2
    assert "missing option --truth" in capsys.readouterr().err
