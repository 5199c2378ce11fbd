"""Image-level smoke tests of the plots: drawn, not blank, with the expected lines and legends."""

import io

import numpy as np
import pytest

from cranfield import ConfusionMatrix, plots, roc_auc


def _pixels(figure) -> np.ndarray:
    from matplotlib.image import imread

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=60)
    buffer.seek(0)
    return imread(buffer, format="png")


def assert_drawn(figure) -> None:
    image = _pixels(figure)
    assert image.shape[0] > 100 and image.shape[1] > 100
    assert image[..., :3].std() > 0.05  # not a blank canvas
    assert (image[..., :3] < 0.9).any(axis=-1).mean() > 0.01  # some ink


def legend_texts(figure) -> list[str]:
    legends = [ax.get_legend() for ax in figure.axes if ax.get_legend()] + list(figure.legends)
    return [t.get_text() for legend in legends for t in legend.get_texts()]


def test_recall_precision_plot_has_one_curve_per_system(retrieval_study):
    figure = plots.recall_precision_plot(retrieval_study.results)
    assert_drawn(figure)
    ax = figure.axes[0]
    assert len(ax.lines) == 3
    assert all(len(line.get_xdata()) == 11 for line in ax.lines)
    texts = legend_texts(figure)
    assert len(texts) == 3 and texts[0].startswith("bm25s_stem (11-pt avg 0.3")


def test_recall_precision_plot_needs_eleven_points(shipped):
    import cranfield

    results = cranfield.evaluate(cranfield.read_qrels(shipped["qrels"]), cranfield.read_run(shipped["runs"]["bm25"]),
                                 ["AP"])
    with pytest.raises(cranfield.UsageError, match="ELEVEN_POINT_MEASURES"):
        plots.recall_precision_plot(results)


def test_per_query_pr_plot_draws_each_query_and_the_mean(retrieval_study):
    results = retrieval_study.results["bm25s_stem"]
    n = len(results.query_ids)
    figure = plots.per_query_pr_plot(results)
    assert_drawn(figure)
    # each query, the legend proxy, the median, the mean
    assert len(figure.axes[0].lines) == n + 3
    assert legend_texts(figure) == [f"each query ({n})", "25th–75th percentile", "median", "mean"]
    chosen = plots.per_query_pr_plot(results, queries=["1", "2"])
    assert legend_texts(chosen) == ["query 1", "query 2", "mean"]


def test_difference_plot_sorts_bars(retrieval_study):
    c = retrieval_study.comparison
    figure = plots.difference_plot(c, "AP", a="bm25s_stem", b="coord_title")
    assert_drawn(figure)
    heights = [bar.get_height() for bar in figure.axes[0].patches]
    assert len(heights) == len(c.query_ids)
    assert heights == sorted(heights, reverse=True)
    assert "higher on 160" in figure.axes[0].get_title()


def test_forest_plot_one_row_per_pair(retrieval_study):
    c = retrieval_study.comparison
    figure = plots.forest_plot(c)
    assert_drawn(figure)
    assert len(figure.axes[0].get_yticklabels()) == len(c.pairs) == 15
    assert len(legend_texts(figure)) == 2


def test_roc_plot_legend_has_auc_and_chance(detection_study):
    y, scores = detection_study.y_true, detection_study.scores
    figure = plots.roc_plot(y, scores)
    assert_drawn(figure)
    texts = legend_texts(figure)
    assert len(texts) == 4 and texts[-1] == "chance (AUC = 0.5)"
    assert texts[0] == f"logistic_regression (AUC = {roc_auc(y, scores['logistic_regression']):.3f})"
    assert len(figure.axes[0].lines) == 4


def test_pr_plot_no_skill_line_at_prevalence(detection_study):
    y = detection_study.y_true
    figure = plots.pr_plot(y, detection_study.scores["naive_bayes"])
    assert_drawn(figure)
    no_skill = figure.axes[0].lines[-1]
    assert np.allclose(no_skill.get_ydata(), y.mean())
    assert legend_texts(figure)[0].startswith("scores (AP = 0.7")


def test_det_plot_uses_normal_deviates_with_percent_ticks(detection_study):
    figure = plots.det_plot(detection_study.y_true, detection_study.scores)
    assert_drawn(figure)
    ax = figure.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == [f"{t:g}" for t in plots.DET_TICKS]
    assert ax.get_xticks()[0] == pytest.approx(-3.0902, abs=1e-3)  # probit(0.1%)
    assert len(legend_texts(figure)) == 4 and "EER" in legend_texts(figure)[0]


@pytest.mark.parametrize("normalize", [None, "actual"])
def test_confusion_matrix_plot_annotates_cells(normalize):
    cm = ConfusionMatrix([[50, 10], [5, 35]], [0, 1], pos_label=1)
    figure = plots.confusion_matrix_plot(cm, normalize=normalize)
    assert_drawn(figure)
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert len(texts) == 4
    assert texts[0] == ("50" if normalize is None else "83.3%\n(50)")


def test_threshold_plot_marks_operating_point(detection_study):
    from cranfield import best_threshold

    y, s = detection_study.y_true, detection_study.scores["random_forest"]
    figure = plots.threshold_plot(y, s, criterion="youden")
    assert_drawn(figure)
    point = best_threshold(y, s, criterion="youden")
    assert len(legend_texts(figure)) == 5
    assert figure.axes[0].lines[-1].get_xdata()[0] == pytest.approx(point.threshold)


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_save_figure_formats(tmp_path, fmt, detection_study):
    figure = plots.roc_plot(detection_study.y_true, detection_study.scores["naive_bayes"])
    path = plots.save_figure(figure, tmp_path / f"roc.{fmt}")
    head = path.read_bytes()[:16]
    assert {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}[fmt] in head
    assert [p.name for p in tmp_path.iterdir()] == [f"roc.{fmt}"]


def test_save_figure_rejects_unknown_format(tmp_path, detection_study):
    import cranfield

    figure = plots.roc_plot(detection_study.y_true, detection_study.scores["naive_bayes"])
    with pytest.raises(cranfield.UsageError, match="png, svg, pdf"):
        plots.save_figure(figure, tmp_path / "roc.gif")
    assert list(tmp_path.iterdir()) == []
