"""Corpus of output destinations (issue 19, item 3): every class of output a user can name.

An output that is (or resolves to) an input is refused; symbolic links are written through;
devices, FIFOs and /dev/stdout are written directly; failures of the writing itself (disk
full, file-size limit, permission denied, read-only file system, an encoding that lacks a
character) are one line and exit 2, with the destination intact and no temporary file left.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import cranfield
import cranfield.cli
import cranfield.io.atomic as atomic
from cranfield.errors import UsageError
from cranfield.io.atomic import atomic_write, reading, write_text_output

CORPUS = Path(__file__).resolve().parent / "corpus"
TREC = Path(__file__).resolve().parents[1] / "data" / "trec_eval"


def _system_path(path) -> bool:
    real = os.path.realpath(os.fspath(path))
    return real.startswith(("/dev/", "/proc/", "/sys/")) or os.fspath(path).startswith(("/dev/", "/proc/"))


def _refuse_system_paths(module) -> None:
    """Make renames onto /dev, /proc or /sys fail in ``module`` (os): a regression of the
    special-file rule must fail these tests, not replace the machine's /dev/null."""
    original_replace, original_rename = module.replace, module.rename

    def guarded(original):
        def rename(source, destination, *args, **kwargs):
            if _system_path(destination):
                raise AssertionError(f"refusing, in a test, to rename a file over {destination}")
            return original(source, destination, *args, **kwargs)
        return rename

    module.replace, module.rename = guarded(original_replace), guarded(original_rename)


# A subprocess running the command line with the same protection.
_PROTECTED_MAIN = """
import os, sys

def guarded(original):
    def rename(source, destination, *args, **kwargs):
        real = os.path.realpath(os.fspath(destination))
        if real.startswith(("/dev/", "/proc/", "/sys/")) or os.fspath(destination).startswith(("/dev/", "/proc/")):
            raise AssertionError(f"refusing, in a test, to rename a file over {destination}")
        return original(source, destination, *args, **kwargs)
    return rename

os.replace, os.rename = guarded(os.replace), guarded(os.rename)
from cranfield.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(autouse=True)
def _no_renames_onto_system_files(monkeypatch):
    monkeypatch.setattr(os, "replace", os.replace)
    monkeypatch.setattr(os, "rename", os.rename)
    _refuse_system_paths(os)


def _temporaries(*folders: Path) -> list[str]:
    return sorted(p.name for folder in folders for p in folder.iterdir() if p.name.endswith(".tmp"))


def _copy_inputs(folder: Path) -> dict[str, Path]:
    names = {"qrels": "good.qrels", "run": "good.run", "run2": "run_crlf.txt", "cls": "cls_ok.parquet"}
    paths = {}
    for key, name in names.items():
        paths[key] = folder / name
        paths[key].write_bytes((CORPUS / name).read_bytes())
    return paths


def _one_error_line(err: str, fragment: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cranfield: error: ") and fragment in lines[0], err
    assert "Traceback" not in err


# ----------------------------------------------------------------------------- an output that is an input

# command line -> which input its -o names (the output must be refused for each command that reads files)
COMMANDS = {
    "trec_eval": lambda p: ["trec_eval", str(p["qrels"]), str(p["run"])],
    "evaluate": lambda p: ["evaluate", str(p["qrels"]), str(p["run"])],
    "ndeval": lambda p: ["ndeval", str(p["qrels"]), str(p["run"])],
    "compare": lambda p: ["compare", str(p["qrels"]), str(p["run"]), str(p["run2"])],
    "classify": lambda p: ["classify", str(p["cls"]), "--truth", "y", "--score", "s"],
    "report": lambda p: ["report", str(p["qrels"]), str(p["run"]), str(p["run2"]), "--permutations", "100", "-q"],
    "agreement": lambda p: ["agreement", str(p["qrels"]), str(p["qrels"]), "--runs", str(p["run"]), "--runs",
                            str(p["run2"])],
    "aggregate-labels": lambda p: ["aggregate-labels", str(p["run"])],
    "calibration": lambda p: ["calibration", str(p["cls"]), "--truth", "y", "--score", "s"],
    "clustering": lambda p: ["clustering", str(p["cls"]), "--truth", "y", "--pred", "s"],
    "regression": lambda p: ["regression", str(p["cls"]), "--truth", "y", "--pred", "s"],
    "pool": lambda p: ["pool", str(p["run"]), str(p["run2"]), "--depth", "5"],
    "reusability": lambda p: ["reusability", str(p["qrels"]), str(p["run"]), str(p["run2"]), "--depth", "5"],
    "beyond": lambda p: ["beyond", str(p["qrels"]), str(p["run"])],
}
TABLE_COMMANDS = ("classify", "calibration", "clustering", "regression")  # their input is the table


@pytest.mark.parametrize("how", ["same name", "symlink", "hard link", "other spelling"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_naming_an_input_is_refused(tmp_path, capsys, command, how):
    paths = _copy_inputs(tmp_path)
    victim = paths["cls" if command in TABLE_COMMANDS else "run"]
    before = victim.read_bytes()
    if how == "same name":
        output = victim
    elif how == "symlink":
        output = tmp_path / "link"
        output.symlink_to(victim.name)
    elif how == "hard link":
        output = tmp_path / "hard"
        os.link(victim, output)
    else:
        (tmp_path / "sub").mkdir()
        output = tmp_path / "sub" / ".." / victim.name
    status = cranfield.cli.main([*COMMANDS[command](paths), "-o", str(output)])
    _one_error_line(capsys.readouterr().err, "refusing to write the output over an input")
    assert status == 2 and victim.read_bytes() == before and _temporaries(tmp_path) == []
    if how == "symlink":
        assert output.is_symlink()


def test_each_command_that_reads_files_is_covered():
    """Every subcommand with an -o/--output option is in COMMANDS (or known to read no file)."""
    reads_no_file = {"demo", "measures", "curves"}  # curves: -o is a folder (see below)
    for name in cranfield.cli.SUBCOMMANDS:
        command = cranfield.cli.cli.get_command(None, name)
        if any(p.name == "output" for p in command.params):
            assert name in COMMANDS or name in reads_no_file, name


def test_curves_never_overwrite_an_input_in_the_output_folder(tmp_path, capsys):
    paths = _copy_inputs(tmp_path)
    victim = tmp_path / "recall_precision.png"  # the first figure's name, given as a run
    victim.write_bytes(paths["run"].read_bytes())
    before = victim.read_bytes()
    status = cranfield.cli.main(["curves", str(paths["qrels"]), str(victim), str(paths["run2"]), "-o", str(tmp_path),
                                 "-q", "--permutations", "100"])
    _one_error_line(capsys.readouterr().err, "refusing to write the output over an input")
    assert status == 2 and victim.read_bytes() == before and _temporaries(tmp_path) == []


def test_library_writers_take_their_inputs(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("input")
    with pytest.raises(UsageError, match="same file"):
        write_text_output("x", source, inputs=[source])
    with reading([source, "-", tmp_path / "missing", tmp_path]):  # only existing regular files count
        with pytest.raises(UsageError, match="same file"):
            with atomic_write(source) as handle:
                handle.write("x")
        write_text_output("other", tmp_path / "out.txt")
    assert source.read_text() == "input" and (tmp_path / "out.txt").read_text() == "other"
    assert atomic.registered_inputs() == ()
    write_text_output("now allowed", source)  # outside the block it is a plain output
    assert source.read_text() == "now allowed"


# ----------------------------------------------------------------------------- symbolic links


@pytest.mark.parametrize("dangling", [False, True])
def test_symlink_is_written_through_atomically(tmp_path, dangling):
    target_dir = tmp_path / "elsewhere"
    target_dir.mkdir()
    target = target_dir / "results.txt"
    if not dangling:
        target.write_text("old")
        target.chmod(0o640)
    link = tmp_path / "latest.txt"
    link.symlink_to(target)
    write_text_output("new\n", link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n"
    if not dangling:
        assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the permissions of the file are kept
    assert _temporaries(tmp_path, target_dir) == []


def test_symlink_interrupted_keeps_the_target(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target.name)
    with pytest.raises(KeyboardInterrupt):
        with atomic_write(link) as handle:
            handle.write("partial")
            raise KeyboardInterrupt
    assert link.is_symlink() and target.read_text() == "old" and _temporaries(tmp_path) == []


def test_run_to_trec_through_a_symlink(tmp_path):
    target = tmp_path / "target.run"
    link = tmp_path / "link.run"
    link.symlink_to(target)
    cranfield.Run.from_dict({"q1": {"d1": 1.0}}).to_trec(link)
    assert link.is_symlink() and target.read_text().split()[:3] == ["q1", "Q0", "d1"]


# ----------------------------------------------------------------------------- special files


def test_dev_null_is_written_directly(tmp_path, capsys):
    status = cranfield.cli.main(["evaluate", str(CORPUS / "good.qrels"), str(CORPUS / "good.run"), "-o", os.devnull])
    assert status == 0 and stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert capsys.readouterr().err == ""


def test_fifo_is_written_directly(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    write_text_output("through the pipe\n", fifo)
    reader.join(timeout=30)
    assert received == ["through the pipe\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_dev_full_is_one_line(capsys):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    status = cranfield.cli.main(["evaluate", str(CORPUS / "good.qrels"), str(CORPUS / "good.run"), "-o", "/dev/full"])
    _one_error_line(capsys.readouterr().err, "/dev/full: cannot write the output: No space left on device")
    assert status == 2


@pytest.mark.parametrize("name", ["/dev/stdout", "/proc/self/fd/1"])
def test_dev_stdout_redirected_to_a_file(tmp_path, name):
    """`cranfield ... -o /dev/stdout > file`: the output lands in the file, which stays a file."""
    if not os.path.exists(name):
        pytest.skip(f"no {name}")
    out = tmp_path / "redirected.txt"
    with open(out, "w") as handle:
        done = subprocess.run([sys.executable, "-c", _PROTECTED_MAIN, "evaluate", str(CORPUS / "good.qrels"),
                               str(CORPUS / "good.run"), "-f", "csv", "-o", name], stdout=handle,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == ""
    assert out.read_text().startswith("run,queries,AP,") and _temporaries(tmp_path) == []


# ----------------------------------------------------------------------------- the writing fails

_LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (300, 300))
from cranfield.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_file_size_limit_is_one_line(tmp_path):
    """EFBIG: the CLI ignores SIGXFSZ (which would kill it) and reports the error."""
    out = tmp_path / "out.json"
    out.write_text("previous content")
    done = subprocess.run([sys.executable, "-c", _LIMITED, "evaluate", str(TREC / "qrels.test"),
                           str(TREC / "results.test"), "-q", "-f", "json", "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    _one_error_line(done.stderr, "cannot write the output: File too large")
    assert done.returncode == 2 and out.read_text() == "previous content" and _temporaries(tmp_path) == []


def _fail(code: int):
    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    return fail


@pytest.mark.parametrize("code, where", [(errno.ENOSPC, "fsync"), (errno.EDQUOT, "fsync"), (errno.EROFS, "replace"),
                                         (errno.EACCES, "replace"), (errno.EIO, "fsync")])
def test_failed_write_is_one_line_and_keeps_the_destination(tmp_path, capsys, monkeypatch, code, where):
    out = tmp_path / "out.txt"
    out.write_text("previous content")
    monkeypatch.setattr(atomic.os, where, _fail(code))
    status = cranfield.cli.main(["evaluate", str(CORPUS / "good.qrels"), str(CORPUS / "good.run"), "-o", str(out)])
    _one_error_line(capsys.readouterr().err, f"cannot write the output: {os.strerror(code)}")
    assert status == 2 and out.read_text() == "previous content" and _temporaries(tmp_path) == []


def test_unwritable_folder_is_one_line(tmp_path, capsys):
    folder = tmp_path / "locked"
    folder.mkdir()
    out = folder / "out.txt"
    if os.geteuid() == 0:  # root writes anywhere: a missing folder gives the same path through mkstemp
        out = tmp_path / "missing" / "out.txt"
        fragment = "No such file or directory"
    else:
        folder.chmod(0o555)
        fragment = "Permission denied"
    try:
        status = cranfield.cli.main(["evaluate", str(CORPUS / "good.qrels"), str(CORPUS / "good.run"), "-o", str(out)])
    finally:
        folder.chmod(0o755)
    _one_error_line(capsys.readouterr().err, fragment)
    assert status == 2 and not out.exists()


@pytest.mark.parametrize("output", ["folder", "empty", "nul"])
def test_impossible_output_names_are_one_line(tmp_path, output):
    name = {"folder": str(tmp_path), "empty": "", "nul": str(tmp_path / "a\0b")}[output]
    with pytest.raises(UsageError):
        write_text_output("x", name)
    assert _temporaries(tmp_path) == []


def test_unencodable_text_keeps_the_destination(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("previous content")
    with pytest.raises(UsageError, match="cannot be written in utf-8"):
        write_text_output("ok \udcff lone surrogate", out)
    assert out.read_text() == "previous content" and _temporaries(tmp_path) == []


@pytest.mark.parametrize("argv, status", [
    (["measures"], 0),  # a table full of box-drawing characters and Greek letters
    (["evaluate", str(CORPUS / "good.qrels"), str(CORPUS / "good.run"), "-m", "P@-1"], 2),  # message with "≥"
    (["classify", str(CORPUS / "cls_unicode_labels.tsv"), "--truth", "y", "--score", "s"], None),
])
@pytest.mark.parametrize("environment", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "LANG": "C"}])
def test_ascii_only_terminal(argv, status, environment):
    env = {**os.environ, **environment}
    env.pop("PYTHONUTF8", None)
    done = subprocess.run([sys.executable, "-m", "cranfield", *argv], capture_output=True, env=env, timeout=120)
    out, err = done.stdout.decode("ascii", "replace"), done.stderr.decode("ascii", "replace")
    assert "Traceback" not in err and "internal error" not in err
    assert done.returncode in ((0, 2) if status is None else (status,))
    if done.returncode == 2:
        assert len(err.strip().splitlines()) == 1
    else:
        assert out.strip()
