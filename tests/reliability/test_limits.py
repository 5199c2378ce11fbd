"""Limits on parameters that drive memory or time (issue 19, item 4; docs/reliability.md,
"Limits"): the library refuses them with a UsageError naming the parameter and the limit, so
the API and the command line agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cranfield
import cranfield.cli
from cranfield.errors import UsageError
from cranfield.stats import bootstrap_test, mean_ci, paired_pvalues, randomization_test, randomized_tukey_hsd
from cranfield.stats._resample import MAX_RESAMPLES, all_sign_flips, check_count

CORPUS = Path(__file__).resolve().parent / "corpus"
X = [0.1, 0.5, 0.3, 0.9, 0.4]
Y = [0.2, 0.4, 0.1, 0.5, 0.3]


@pytest.mark.parametrize("value", [1e20, 10**20, MAX_RESAMPLES + 1, float("inf"), float("nan"), 0, -5, 2.5, "100",
                                   None, True, [10], np.float64(1e12)])
@pytest.mark.parametrize("call", [
    lambda n: randomization_test(X, Y, n_permutations=n),
    lambda n: bootstrap_test(X, Y, n_resamples=n),
    lambda n: paired_pvalues(np.array([X]) - np.array([Y]), test="randomization", n_permutations=n),
    lambda n: mean_ci(X, method="bootstrap", n_resamples=n),
    lambda n: mean_ci(X, method="bca", n_resamples=n),
    lambda n: randomized_tukey_hsd(np.array([X, Y, X[::-1]]), n_permutations=n),
], ids=["randomization", "bootstrap", "paired_pvalues", "bootstrap_ci", "bca_ci", "randomized_tukey"])
def test_resample_counts_are_capped(call, value):
    with pytest.raises(UsageError, match=r"n_(permutations|resamples)"):
        call(value)


def test_the_limit_itself_and_whole_floats_are_accepted():
    assert check_count(MAX_RESAMPLES, "n") == MAX_RESAMPLES and check_count(1e4, "n") == 10_000
    assert randomization_test(X * 3, Y * 3, n_permutations=1e3) == randomization_test(X * 3, Y * 3, n_permutations=1000)
    with pytest.raises(UsageError, match="at most 10,000,000"):
        check_count(MAX_RESAMPLES + 1, "n_permutations")


def test_exact_enumeration_is_chunked():
    """2**n sign vectors are enumerated in bounded chunks (2**23 rows at once would be 1.5 GB)."""
    chunks = list(all_sign_flips(18))
    assert len(chunks) > 1 and max(c.nbytes for c in chunks) <= 80 * 2**20
    codes = np.concatenate([c @ (1 << np.arange(18)) for c in chunks])
    assert np.array_equal(codes, np.arange(1 << 18))


def test_bootstrap_interval_memory_is_capped():
    with pytest.raises(UsageError, match="resampled means"):
        mean_ci(np.zeros((20, 5)), method="bootstrap", n_resamples=MAX_RESAMPLES)


@pytest.mark.parametrize("random_state", ["seed", -1, 1.5, True])
def test_bad_random_state(random_state):
    with pytest.raises(UsageError, match="random_state"):
        randomization_test(X, Y, random_state=random_state)


@pytest.mark.parametrize("dpi", [10_000, 1201, 0, -1, float("nan"), "300", None, True])
def test_dpi_is_capped(tmp_path, dpi):
    from cranfield.plots import roc_plot, save_figure, save_figures

    figure = roc_plot([0, 1, 0, 1], [0.1, 0.8, 0.3, 0.6])
    with pytest.raises(UsageError, match="dpi"):
        save_figure(figure, tmp_path / "roc.png", dpi=dpi)
    with pytest.raises(UsageError, match="dpi"):
        save_figures({"roc": figure}, tmp_path / "folder", dpi=dpi)
    assert list(tmp_path.iterdir()) == []  # not even the folder


def test_huge_png_is_refused(tmp_path):
    from cranfield.plots import roc_plot, save_figure

    figure = roc_plot([0, 1, 0, 1], [0.1, 0.8, 0.3, 0.6])
    figure.set_size_inches(200, 200)
    with pytest.raises(UsageError, match="megapixels"):
        save_figure(figure, tmp_path / "roc.png", dpi=1200)
    save_figure(figure, tmp_path / "roc.svg", dpi=1200)  # vector formats are not drawn in memory
    assert sorted(p.name for p in tmp_path.iterdir()) == ["roc.svg"]


@pytest.mark.parametrize("argv, fragment", [
    (["curves", str(CORPUS / "good.qrels"), str(CORPUS / "good.run"), "--dpi", "10000", "-q"], "dpi"),
    (["compare", str(CORPUS / "good.qrels"), str(CORPUS / "good.run"), str(CORPUS / "run_crlf.txt"), "--test",
      "randomization", "--permutations", str(10**20)], "--permutations: expected at most 10,000,000"),
    (["compare", str(CORPUS / "good.qrels"), str(CORPUS / "good.run"), str(CORPUS / "run_crlf.txt"), "--test",
      "bootstrap", "--permutations", "0"], "--permutations: expected a whole number >= 1"),
])
def test_cli_limits_are_one_line(tmp_path, capsys, argv, fragment):
    status = cranfield.cli.main([*argv, "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("cranfield: error: ") and fragment in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("measure", ["R@1000000000000000000", "nDCG@1000000000000000000", "ERR@1000000000000000000"])
def test_huge_cutoffs_do_not_drive_memory(measure):
    """Cut-offs up to the grammar's 10^18 are clipped to the documents retrieved by the kernels."""
    results = cranfield.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0, "d2": 0.5}}, [measure])
    assert results.mean[measure] == cranfield.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0, "d2": 0.5}},
                                                       [measure.split("@")[0] + "@2"]).mean[measure.split("@")[0] + "@2"]
    with pytest.raises(cranfield.MeasureError, match="at most 10"):
        cranfield.parse_measure("P@10000000000000000000")
