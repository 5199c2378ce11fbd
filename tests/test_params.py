"""cranfield._params: declared argument constraints, one wording, the user's own names."""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cranfield
from cranfield._params import (
    Choice,
    Count,
    Interval,
    Optional,
    Seed,
    check_choice,
    check_count,
    check_flag,
    check_fraction,
    check_seed,
    display_name,
    option_names,
    validate_params,
)
from cranfield.errors import UsageError


@pytest.mark.parametrize("constraint, text", [
    (Interval(0, 1, closed="neither"), "a number strictly between 0 and 1"),
    (Interval(0, 1), "a number from 0 to 1"),
    (Interval(0, 1, closed="left"), "a number >= 0 and < 1"),
    (Interval(0, None, closed="neither"), "a number > 0"),
    (Interval(None, 5, integer=True), "a whole number <= 5"),
    (Interval(), "a finite number"),
])
def test_one_wording_per_interval(constraint, text):
    with pytest.raises(UsageError) as error:
        constraint("x", "alpha")
    assert str(error.value) == f"alpha: expected {text}, found 'x'"


@given(st.sampled_from([math.nan, math.inf, -math.inf, np.float64("nan"), True, np.bool_(True), "0.5", None]))
def test_intervals_refuse_non_numbers_and_non_finite_values(value):
    with pytest.raises(UsageError, match="^confidence: expected a number strictly between 0 and 1, found "):
        check_fraction(value, "confidence")


@given(st.floats(min_value=0, max_value=1, exclude_min=True, exclude_max=True))
def test_fractions_come_back_as_floats(value):
    assert check_fraction(value, "confidence") == value and type(check_fraction(value, "confidence")) is float


def test_counts_accept_whole_floats_and_refuse_the_rest():
    assert check_count(1e4, "resamples") == 10_000 and type(check_count(np.int64(3), "n")) is int
    for bad in (1.5, math.nan, math.inf, True, 0, "3"):
        with pytest.raises(UsageError, match="^n: expected a whole number >= 1, found "):
            check_count(bad, "n")
    with pytest.raises(UsageError, match=r"^n: expected at most 10 \(why\), found 11"):
        Count(1, 10, "why")(11, "n")


def test_choices_compare_strings_as_strings():
    assert check_choice("holm", "correction", ("none", "holm")) == "holm"
    for bad in ("Holm", np.array(["holm"]), 1, None):
        with pytest.raises(UsageError, match="^correction: expected one of none, holm, found "):
            check_choice(bad, "correction", ("none", "holm"))
    assert Choice((True, False))(False, "flag") is False
    with pytest.raises(UsageError):
        Choice((1, 2))(True, "k")  # True == 1, but a bool is not the count 1


def test_seeds():
    assert isinstance(Seed()(None, "seed"), np.random.Generator)
    generator = np.random.default_rng(1)
    assert Seed()(generator, "seed") is generator
    assert Seed()(7, "seed").integers(10**9) == np.random.default_rng(7).integers(10**9)
    for bad in (-1, 1.5, True, "7", np.random.RandomState(0)):
        with pytest.raises(UsageError, match="^random_state: expected an int >= 0, None or a numpy.random.Generator"):
            Seed()(bad, "random_state")
    assert check_seed(None) is None and check_seed(5) == 5
    with pytest.raises(UsageError, match="^random_state: expected a whole number >= 0 and < 4294967296"):
        check_seed(2**32)


def test_validate_params_checks_what_the_caller_passed():
    @validate_params(alpha=Interval(0, 1, closed="neither"), n=Count(2), k=Optional(Count(1)))
    def f(x, *, alpha=0.05, n=10, k=None):
        return x, alpha, n, k

    assert f(1, alpha=1 / 2, n=3.0) == (1, 0.5, 3, None)  # normalised: 3.0 -> 3
    with pytest.raises(UsageError, match="^alpha: expected a number strictly between 0 and 1, found 1"):
        f(1, alpha=1)
    with pytest.raises(UsageError, match="^k: expected a whole number >= 1, found 0"):
        f(1, k=0)
    with pytest.raises(UsageError, match="^f: "):
        f(1, 2)  # a positional argument for a keyword-only parameter
    assert f.__name__ == "f" and set(f.__cranfield_params__) == {"alpha", "n", "k"}


def test_option_names_map_library_parameters_to_the_users_names():
    assert display_name("p1") == "p1"
    with option_names(p1="--baseline"):
        assert display_name("p1") == "--baseline"
        with option_names(p2="--baseline + --mde"):
            with pytest.raises(UsageError, match=r"^--baseline \+ --mde: expected a number from 0 to 1, found 1.1"):
                Interval(0, 1)(1.1, "p2")
        assert display_name("p2") == "p2"
    assert display_name("p1") == "p1"


@pytest.mark.parametrize("argv, message", [
    (["online", "power", "--baseline", "0.3", "--mde", "0.1", "--alpha", "1.5"],
     "--alpha: expected a number strictly between 0 and 1, found 1.5"),
    (["online", "power", "--baseline", "0.3", "--mde", "0.1", "--ratio", "-2"], "--ratio: expected a number > 0"),
    (["compare", "q", "a", "b", "--alpha", "2"], None),
])
def test_the_command_line_names_its_own_options(argv, message, capsys, tmp_path):
    import cranfield.cli

    if message is None:  # a library check reached through compare: the option, not the parameter
        (tmp_path / "q").write_text("1 0 d1 1\n2 0 d1 1\n")
        for name in ("a", "b"):
            (tmp_path / name).write_text("1 Q0 d1 1 1 x\n2 Q0 d1 1 1 x\n")
        argv = ["compare", str(tmp_path / "q"), str(tmp_path / "a"), str(tmp_path / "b"), "--alpha", "2"]
        message = "--alpha: expected a number strictly between 0 and 1, found 2.0"
    assert cranfield.cli.main(argv) == 2
    assert capsys.readouterr().err.startswith(f"cranfield: error: {message}")


def test_flags():
    assert check_flag(np.bool_(True), "normalize") is True
    for bad in (1, "yes", None):
        with pytest.raises(UsageError, match="^normalize: expected True or False, found "):
            check_flag(bad, "normalize")


# Messages of the kinds _params words (choices, intervals, counts, flags), written by hand in a
# UsageError. Each exception names why it stays.
HAND_WRITTEN = re.compile(r"strictly between|expected one of|must be one of|must be True or False|"
                          r"must be (?:a |an )?(?:finite |non-negative |positive |whole )*(?:number|integer|int)\b|"
                          r"must be (?:in|lie in) [\[(]|must lie in [\[(]|must be (?:≥|>=|>) ?\d")
KNOWN = {
    "io/trec_grammar.py": "the TREC readers' internals belong to the trec_eval change",
    "retrieval/large.py": "the TREC readers' internals belong to the trec_eval change",
    "measures/view.py": "the -l policy: the message says why a negative level is refused",
}


def _usage_error_texts(path):
    """The constant text of the first argument of each ``UsageError(...)`` call in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "UsageError" and node.args:
            parts = [n.value for n in ast.walk(node.args[0]) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            yield node.lineno, "".join(parts)


def test_no_hand_written_argument_checks():
    """The checks _params expresses are not written by hand again (issue 23 item 5)."""
    root = Path(cranfield.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name == "_params.py" or name in KNOWN:
            continue
        found += [f"{name}:{line}: {text}" for line, text in _usage_error_texts(path) if HAND_WRITTEN.search(text)]
    assert found == [], "use cranfield._params (check_choice, check_interval, check_count, check_flag, usage_error)"


def test_the_pattern_finds_the_old_copies():
    for text in ("alpha: expected a number strictly between 0 and 0.5, found ", "average must be one of ",
                 "adjusted must be True or False, found ", "k must be a positive integer, found ",
                 "max_fpr must be in (0, 1], found ", "split_every must be ≥ 2, found ", "bins must be ≥ 1, found ",
                 "beta must be a finite non-negative number, found ", "head_share must lie in (0, 1), found "):
        assert HAND_WRITTEN.search(text), text
