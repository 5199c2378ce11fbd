"""The examples in the public docstrings of the classification modules run and give what they show."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["confusion", "rates", "curves", "thresholds", "probabilistic", "measures", "gain"])
def test_docstring_examples(module):
    mod = importlib.import_module(f"cranfield.classification.{module}")
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_confusion_matrix_has_examples():
    mod = importlib.import_module("cranfield.classification.confusion")
    assert doctest.testmod(mod).attempted > 0
