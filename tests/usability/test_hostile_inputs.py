"""Hostile inputs over the new surfaces, end to end (issue 24, round 3).

Each row of the table (tests/usability/_hostile_table.py) writes its files into the test's
folder and runs the command line in process (or a library call, for the frame paths). A refused
input must exit 2 with one line that names file:line and field, or the option as the user typed
it: no traceback, no "internal error". An accepted input must exit 0 with the number equal to an
independent reference (scikit-learn, scipy, statsmodels, krippendorff, exact rationals).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import cranfield.cli
from cranfield.errors import CranfieldError
from tests.usability._hostile_table import Case, all_cases

CASES = all_cases()


def _write(folder, files: dict) -> None:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_bytes(content.encode())
        else:
            path.write_bytes(content)


def _one_line(err: str) -> str:
    """The error the user reads: cranfield's one line, or click's own usage error (its last line,
    which names the option as typed)."""
    lines = err.strip().splitlines()
    assert "Traceback" not in err and "internal error" not in err, err
    if lines and lines[0].startswith("Usage: ") and lines[-1].startswith("Error: "):
        return lines[-1]
    assert len(lines) == 1 and lines[0].startswith("cranfield: "), err
    return lines[0]


def _run(case: Case, folder, capsys):
    if callable(case.argv):
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                return 0, case.argv(folder), ""
        except CranfieldError as error:
            return 2, None, f"cranfield: error: {error}"
    status = cranfield.cli.main(list(case.argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_the_table_is_large_and_covers_every_root_cause():
    assert len(CASES) >= 120 and len({c.id for c in CASES}) == len(CASES)
    assert {c.cause for c in CASES} >= {1, 2, 3, 4, 5, 6, 7}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(case: Case, tmp_path, monkeypatch, capsys):
    _write(tmp_path, case.files)
    monkeypatch.chdir(tmp_path)
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    status, out, err = _run(case, tmp_path, capsys)
    if case.expect.status == 2:
        assert status == 2, (status, out[:300] if isinstance(out, str) else out, err)
        line = _one_line(err)
        for fragment in case.expect.fragments:
            assert fragment in line, (fragment, line)
    else:
        assert status == 0, err
        if isinstance(out, str):
            try:
                out = json.loads(out)
            except ValueError:
                pass
        case.expect.check(out)
