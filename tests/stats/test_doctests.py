import doctest
import importlib

import pytest

MODULES = ["intervals", "paired", "corrections", "effects", "compare", "equivalence", "power", "roc.delong", "roc.partial_auc",
           "roc.tests", "roc.power"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    if name == "compare":  # its example evaluates runs with the retrieval core
        pytest.importorskip("cranfield.retrieval.evaluate")
    module = importlib.import_module(f"cranfield.stats.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
