import doctest
import importlib

import pytest

MODULES = ["intervals", "paired", "corrections", "effects", "compare", "equivalence", "power"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    if name == "compare":  # its example evaluates runs with the retrieval core
        pytest.importorskip("cranfield.retrieval.evaluate")
    module = importlib.import_module(f"cranfield.stats.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
