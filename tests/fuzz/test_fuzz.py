"""The quick version of the fuzzers (issue 9): each target for a few dozen examples.

The longer, time-bounded run is ``python scripts/fuzz.py --seconds N`` (CI). Any input must give
a result or a CranfieldError; a crash found is added to tests/reliability/corpus.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz_targets import TARGETS, Target, check

QUICK = settings(max_examples=25, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_no_crash(target: Target):
    @QUICK
    @given(target.strategy)
    def run(value):
        check(target, value)

    run()


def test_check_lets_crashes_through():
    """A target whose function raises something other than CranfieldError fails the fuzzer."""
    def broken(value):
        raise KeyError(value)

    with pytest.raises(KeyError):
        check(Target("broken", None, broken), "x")
    from cranfield.errors import InputError

    def multi_line(value):
        raise InputError("two\nlines")

    with pytest.raises(AssertionError, match="not one line"):
        check(Target("multi", None, multi_line), "x")
