"""The comparison of ``cranfield compare`` from the paths it names: read the qrels and the runs
(:mod:`cranfield.retrieval.inputs`), compare the runs (:func:`~cranfield.stats.compare.compare`),
or with seed groups compare the systems' means over seeds (:func:`~cranfield.stats.seeds.compare_seeds`);
the command only renders the result."""

from __future__ import annotations

from ..errors import UsageError
from ..retrieval.inputs import baseline_name, read_qrels_file, read_runs
from .compare import compare
from .seeds import compare_seeds, parse_seed_groups

__all__ = ["compare_run_files"]


def compare_run_files(qrels, specs, measures=None, *, qrels_columns: str | None = None, run_columns: str | None = None,
                      seed_groups=(), baseline: str | None = None, missing: str = "error",
                      evaluate_options: dict | None = None, **options):
    """Compare the runs of ``specs`` (``(path, label or None)``, at least two) on ``measures``
    (default AP) against the qrels at ``qrels``. ``baseline`` names a run by its name, path or
    file name. With ``seed_groups`` (``SYSTEM=RUN,RUN,...`` texts) the result is a
    :class:`~cranfield.stats.seeds.SeedResult` of the systems, else a
    :class:`~cranfield.stats.compare.Comparison`; ``options`` go to the comparison (test,
    correction, alpha, ci, n_permutations, random_state, zero_method, family)."""
    if len(specs) < 2:
        raise UsageError(f"expected at least 2 runs to compare, found {len(specs)}")
    measures = list(measures or ()) or ["AP"]
    qrels_data = read_qrels_file(qrels, qrels_columns)
    named = read_runs(specs, run_columns=run_columns)
    paths = [p for p, _ in specs]
    if seed_groups:
        return _over_seeds(qrels_data, named, paths, seed_groups, measures, missing=missing, baseline=baseline,
                           evaluate_options=evaluate_options, options=options)
    return compare(qrels_data, named, measures, baseline=baseline_name(baseline, named, paths), missing=missing,
                   evaluate_options=evaluate_options, **options)


def _over_seeds(qrels_data, named, paths, seed_groups, measures, *, missing, baseline, evaluate_options, options):
    groups = {system: [_run_name(r, named, paths) for r in runs]
              for system, runs in parse_seed_groups(seed_groups).items()}
    if baseline is not None and baseline not in groups:
        raise UsageError(f"--baseline {baseline!r}: with --seeds, name a system: {', '.join(groups)}")
    scores = compare(qrels_data, named, measures, test="t", correction="none", missing=missing,
                     evaluate_options=evaluate_options)
    names = list(scores.systems)
    matrices = {m: dict(zip(names, scores.values(m))) for m in scores.measures}
    return compare_seeds(matrices, groups, scores.query_ids, baseline=baseline, **options)


def _run_name(name: str, named: dict, paths: list) -> str:
    try:
        return baseline_name(name, named, paths)
    except UsageError:
        raise UsageError(f"--seeds: {name!r} is none of the runs: {', '.join(named)} (run names or file names)") from None
