import doctest

import pytest

import cranfield.datasets
import cranfield.report.progress


@pytest.mark.parametrize("module", [cranfield.datasets, cranfield.report.progress])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
