"""Only cranfield errors escape (issue 19, item 6).

Every public function and class (the ``__all__`` of ``cranfield`` and of its public modules)
and every command of the command line (``cranfield.cli.SUBCOMMANDS`` and their click
parameters) is called with garbage built from its signature: None, huge and negative numbers,
NaN, empty and NUL/newline strings, wrong types, nested lists, missing files, folders, and
near-valid values (small label and score arrays, qrels and run dicts, real corpus files) so that
calls get past the first check. A call must return normally or raise a
:class:`~cranfield.errors.CranfieldError`; a command must exit 0 or 2 with no traceback and no
"internal error". Examples are derandomized (the same every run, so CI is stable); the fuzzer
(``scripts/fuzz.py``) explores further.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import os
import shutil
import warnings
from pathlib import Path

import click
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import cranfield  # noqa: E402
import cranfield.cli  # noqa: E402
from cranfield._boundary import PUBLIC_MODULES  # noqa: E402
from cranfield.errors import CranfieldError  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "corpus"  # copied into each test's folder: never passed itself
MODULES = ("cranfield", *PUBLIC_MODULES)

# Public callables not called, with the reason.
SKIPPED: dict[str, str] = {
    "cranfield.dask.evaluate": "starts Dask's scheduler on near-valid input (seconds per call); covered by tests/scale",
    "cranfield.dask.score_stats": "starts Dask's scheduler on near-valid input (seconds per call); covered by tests/scale",
    "cranfield.online.fit_click_model_dask": "starts Dask's scheduler; covered by tests/online/test_click_models.py",
    "cranfield.online.dask_impression_metrics": "starts Dask's scheduler; covered by tests/online/test_metrics.py",
}
# Commands called with fewer examples: each successful call draws figures or a whole report.
SLOW_COMMANDS = {"report": 8, "curves": 8}
# Commands not fuzzed, with the reason (and a fixed check below instead).
SKIPPED_COMMANDS = {
    "demo": "takes no input, only options; a successful call evaluates, compares and draws the whole demo "
            "(tens of seconds); its bad options are checked by test_demo_bad_options, the demo itself by "
            "tests/report/test_demo.py",
}


def _garbage_values(folder: Path) -> list:
    return [
        None, True, 0, -1, 1, 2, 3, 2**70, -(2**70), 1e308, float("nan"), float("inf"), -float("inf"), -0.0, 0.5,
        1 + 2j, "", " ", "\0", "a\nb", "x" * 300, "é\u2028", b"\xff\xfe", "AP", "nDCG@10", "f1", "holm", "t", "auto",
        [], [[]], [[1, [2]]], [None], [float("nan")], ["a", "b"], [0, 1], [0, 1, 1, 0], [0.1, 0.9, 0.4, 0.6],
        [[0.1, 0.9], [0.8, 0.2]], (1, "a"), {}, {"a": None}, {"q1": {"d1": "x"}}, {"q1": {"d1": 1, "d2": 0}},
        {"q1": {"d1": 2.5, "d2": 1.5}}, {"a": {"AP": {"q1": 0.5, "q2": 0.1}}, "b": {"AP": {"q1": 0.4, "q2": 0.3}}},
        set(), object(), np.array([]), np.array([[np.nan]]), np.array(["a", "b"]), np.array([0, 1, 1, 0]),
        np.array([0.2, 0.7, 0.6, 0.1]), np.zeros((2, 3, 4)), np.array([1e308, -1e308]),
        str(folder / "missing.txt"), str(folder), folder, str(folder / "corpus" / "good.qrels"), str(folder / "corpus" / "good.run"),
        str(folder / "corpus" / "cls_ok.parquet"), str(folder / "corpus" / "run_binary.bin"), lambda *a, **k: None, print,
    ]


def _public_callables() -> list[tuple[str, object]]:
    found: dict[int, tuple[str, object]] = {}
    for module_name in MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # pragma: no cover - an optional extra missing
            continue
        for name in module.__all__:
            value = getattr(module, name)
            qualified = f"{module_name}.{name}"
            if qualified in SKIPPED or id(value) in found:
                continue
            if inspect.isclass(value) and not issubclass(value, BaseException):
                found[id(value)] = (qualified, value)
                for attribute, member in vars(value).items():
                    if not attribute.startswith("_") and isinstance(member, (classmethod, staticmethod)):
                        found[id(member)] = (f"{qualified}.{attribute}", getattr(value, attribute))
            elif inspect.isfunction(value):
                found[id(value)] = (qualified, value)
    return sorted(found.values(), key=lambda item: item[0])


CALLABLES = _public_callables()


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A temporary folder holding a copy of the corpus: a drawn ``-o`` or a path argument may write
    over these files (an output named like a file the command does not read is legitimate), so the
    corpus itself is never named."""
    made = tmp_path_factory.mktemp("garbage")
    shutil.copytree(CORPUS, made / "corpus")
    return made


def _draw_call(data, function, values):
    """Positional and keyword arguments for ``function``: every required parameter, and some
    optional ones, get a value from ``values``."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return (), {}
    args, kwargs = [], {}
    pick = st.sampled_from(values)
    for parameter in signature.parameters.values():
        if parameter.name in ("self", "cls"):
            continue
        required = parameter.default is inspect.Parameter.empty
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(data.draw(st.lists(pick, max_size=2)))
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        elif required or data.draw(st.booleans()):
            value = data.draw(pick)
            if parameter.kind is inspect.Parameter.POSITIONAL_ONLY or (
                    parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and required):
                args.append(value)
            else:
                kwargs[parameter.name] = value
    return args, kwargs


def _log(name: str, error: CranfieldError) -> None:
    """With CRANFIELD_GARBAGE_LOG=FILE, record the errors the boundary guard made (foreign
    exceptions: a check the function lacks) as ``name<TAB>foreign type<TAB>message`` lines."""
    log = os.environ.get("CRANFIELD_GARBAGE_LOG")
    if log and getattr(error, "boundary", False):
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"{name}\t{type(error.__cause__).__name__}\t{' '.join(str(error.__cause__).split())[:150]}\n")


@pytest.mark.parametrize("name, function", CALLABLES, ids=[name for name, _ in CALLABLES])
def test_public_callable_raises_only_cranfield_errors(name, function, folder):
    values = _garbage_values(folder)

    @settings(max_examples=12, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data):
        args, kwargs = _draw_call(data, function, values)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                result = function(*args, **kwargs)
                if inspect.isgenerator(result):
                    for _ in zip(range(3), result):
                        pass
            except CranfieldError as error:
                assert "\n" not in str(error).strip() or isinstance(error, cranfield.MeasureError), str(error)
                _log(name, error)
            except Exception as error:  # noqa: BLE001 - the point of the test
                raise AssertionError(f"{name}(*{args!r}, **{kwargs!r}) raised {type(error).__name__}: {error}") \
                    from error

    check()


def test_every_public_module_is_enumerated():
    assert len(CALLABLES) > 80
    names = {name for name, _ in CALLABLES}
    for expected in ("cranfield.evaluate", "cranfield.stats.mean_ci", "cranfield.classification.score_counts",
                     "cranfield.protocols.relevant_counts", "cranfield.plots.save_figure", "cranfield.correlation.kendall_tau",
                     "cranfield.Run.from_dict"):
        assert expected in names, expected


# ----------------------------------------------------------------------------- command line


def _option_values(folder: Path) -> list[str]:
    return ["", "-1", "0", "1", "3", "1e20", "nan", "inf", "abc", "a\nb", "\u2265", "9" * 30, "AP", "P@-1",
            "nDCG@10", "map", "x" * 200, str(folder / "missing"), str(folder), str(folder / "corpus" / "good.run"),
            str(folder / "corpus" / "good.qrels"), str(folder / "corpus" / "cls_ok.parquet"), str(folder / "corpus" / "cls_binary.csv"),
            str(folder / "corpus" / "run_score_nan.txt"), str(folder / "corpus" / "zscore_nan.txt"), "y", "s"]


def _draw_argv(data, name: str, command: click.Command, folder: Path) -> list[str]:
    values = _option_values(folder)
    outputs = [str(folder / "out" / "x.txt"), str(folder / "outdir"), str(folder), os.devnull,
               str(folder / "missing" / "deep" / "x"), str(folder / "corpus" / "good.run")]
    argv = [name]
    for param in command.params:
        if param.name in ("help", "version"):
            continue
        if isinstance(param, click.Argument):
            count = 1 if param.nargs == 1 else data.draw(st.integers(1 if param.required else 0, 3))
            argv += [data.draw(st.sampled_from(values)) for _ in range(count)]
            continue
        flag = param.opts[0]
        if param.name in cranfield.cli.OUTPUT_PARAMETERS:  # never the working folder
            argv += [flag, data.draw(st.sampled_from(outputs))]
        elif not (param.required or data.draw(st.booleans())):
            continue
        elif getattr(param, "is_flag", False):
            argv.append(flag)
        else:
            choices = list(getattr(param.type, "choices", ()) or ())
            argv += [flag, data.draw(st.sampled_from(choices + values[:6] if choices else values))]
    return argv


@pytest.mark.parametrize("name", sorted(set(cranfield.cli.SUBCOMMANDS) - set(SKIPPED_COMMANDS)))
def test_cli_command_exits_0_or_2_without_traceback(name, folder, monkeypatch):
    command = cranfield.cli.cli.get_command(None, name)
    monkeypatch.chdir(folder)  # anything written by default goes to the temporary folder
    monkeypatch.setenv("CRANFIELD_THREADS", "1")

    @settings(max_examples=SLOW_COMMANDS.get(name, 25), deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data):
        argv = _draw_argv(data, name, command, folder)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            status = cranfield.cli.main(argv)
        text = err.getvalue()
        assert status in (0, 2), (argv, status, text)
        assert "Traceback" not in text and "internal error" not in text, (argv, text)
        if status == 2:
            assert len(text.strip().splitlines()) >= 1

    check()


@pytest.mark.parametrize("options", [["--permutations", "0"], ["--permutations", "1e20"], ["--seed", "abc"],
                                     ["--format", "gif"], ["--permutations", str(10**30)]])
def test_demo_bad_options(options, folder, capsys):
    status = cranfield.cli.main(["demo", "-q", "-o", str(folder / "demo"), *options])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err and "internal error" not in err
    assert not (folder / "demo").exists() or not any((folder / "demo").iterdir())
