import subprocess
import sys


def test_protocol_modules_import_light():
    code = ("import sys, cranfield.protocols.splits, cranfield.protocols.cross_validation, cranfield.protocols.tuning, "
            "cranfield.protocols.curves, cranfield.plots.protocols, cranfield.protocols.retrieval, "
            "cranfield.protocols.corrected_ttest; "
            "print([m for m in ('sklearn', 'scipy', 'pandas', 'matplotlib', 'pyarrow') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_top_level_exports():
    import cranfield
    from cranfield.protocols import cross_validation, retrieval, splits, tuning

    assert cranfield.cross_validate is cross_validation.cross_validate
    assert cranfield.tune is tuning.tune and cranfield.tune_on_queries is retrieval.tune_on_queries
    assert cranfield.kfold is splits.kfold and cranfield.holdout is splits.holdout
    import cranfield.protocols as protocols

    for name in protocols.__all__:
        assert getattr(protocols, name) is not None
