from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def trec_dir() -> Path:
    return DATA / "trec_eval"


@pytest.fixture(scope="session")
def cranfield_dir() -> Path:
    return DATA / "cranfield"


# The suite's long poles (tens of seconds each on a 2-core machine, `--durations=20`). Under
# pytest-xdist they are moved to the front of the collection, longest first, so that the load
# scheduler hands them out round-robin before everything else: a 44 s test started last would
# otherwise keep one worker busy while the other one idles. Only the order changes, never a test.
LONG_POLES = (
    "tests/usability/test_docs_blocks.py::test_docs_page_blocks_run_as_written[cli.md]",
    "tests/usability/test_readme.py::test_readme_bash_block_runs_as_written",
    "tests/test_fusion.py::test_equals_ranx_on_the_shipped_runs",
    "tests/judge/test_crash.py::test_kill_9",
    "tests/stats/test_quantile_ci.py::test_binomial_interval_equals_scipy",
    "tests/report/test_terminal_tables.py::test_the_demo_table_fits_80_and_200_columns",
    "tests/judgments/test_judges.py::test_bootstrap_intervals_are_the_loop_over_resamples",
    "tests/measures/test_issue26_measures.py::test_hits_against_ranx",
    "tests/usability/test_docs_blocks.py::test_docs_page_blocks_run_as_written",
    "tests/judge/test_load.py::",
)


def _long_pole_rank(item) -> int:
    for rank, prefix in enumerate(LONG_POLES):
        if item.nodeid.startswith(prefix):
            return rank
    return len(LONG_POLES)


def pytest_collection_modifyitems(config, items):
    if hasattr(config, "workerinput"):  # an xdist worker: every worker sorts the same way (stable)
        items.sort(key=_long_pole_rank)
