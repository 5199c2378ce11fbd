"""The boundary guard of the public API (cranfield._boundary): foreign exceptions become
CranfieldError, chained, still instances of the original built-in class; identity, signatures
and pickling of the public functions are kept."""

from __future__ import annotations

import inspect
import pickle

import pytest

import cranfield
import cranfield.correlation
import cranfield.stats
from cranfield._boundary import translate
from cranfield.errors import CranfieldError, InputError, UsageError


def test_foreign_exception_is_translated_and_chained():
    with pytest.raises(UsageError) as caught:
        cranfield.correlation.kendall_tau(None, None)  # TypeError inside: no check for None yet
    error = caught.value
    assert isinstance(error, TypeError) and isinstance(error.__cause__, TypeError) and error.boundary
    assert str(error).startswith("kendall_tau: TypeError: ")


@pytest.mark.parametrize("foreign, kind, builtin", [
    (TypeError("bad type"), UsageError, TypeError), (KeyError("q1"), InputError, KeyError),
    (IndexError("out of range"), InputError, IndexError), (OverflowError("big"), UsageError, OverflowError),
    (FileNotFoundError(2, "No such file or directory", "x.txt"), InputError, FileNotFoundError),
    (MemoryError(), UsageError, MemoryError), (AttributeError("no attribute"), UsageError, AttributeError),
    (UnicodeEncodeError("ascii", "é", 0, 1, "ordinal not in range"), InputError, ValueError),
])
def test_translation_keeps_the_builtin_class(foreign, kind, builtin):
    error = translate(foreign, "f")
    assert isinstance(error, kind) and isinstance(error, builtin) and error.boundary
    assert str(error).startswith("f: ") or (isinstance(error, InputError) and error.source == "x.txt")
    assert "\n" not in str(error)
    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy, kind) and str(copy) == str(error)


@pytest.mark.parametrize("foreign", [AssertionError("bug"), RuntimeError("bug"), StopIteration(),
                                     InputError("already ours")])
def test_bugs_and_cranfield_errors_pass_unchanged(foreign):
    assert translate(foreign, "f") is None


def test_public_functions_keep_identity_signature_and_pickling():
    from cranfield.classification import curves, measures
    from cranfield.protocols import splits

    assert cranfield.kfold is splits.kfold is cranfield.protocols.kfold
    assert measures.get_measure("AUC").function is cranfield.roc_auc is curves.roc_auc
    assert "n_permutations" in inspect.signature(cranfield.stats.randomization_test).parameters
    assert pickle.loads(pickle.dumps(cranfield.roc_auc)) is cranfield.roc_auc
    assert cranfield.roc_auc.__doc__ and cranfield.roc_auc.__name__ == "roc_auc"


def test_classes_are_guarded_in_place():
    with pytest.raises(CranfieldError):
        cranfield.Run.from_dict({"q1": {"d1": object()}})
    with pytest.raises(CranfieldError):
        cranfield.ConfusionMatrix.from_counts(tp="x", fp=1, fn=1, tn=1)


def test_generators_are_guarded_while_iterating():
    with pytest.raises(CranfieldError):
        list(cranfield.kfold(None))
