"""One option vocabulary (issue 27): the table in docs/cli.md, "One option vocabulary", is the
contract, and this test walks every click command of ``cranfield.cli.cli`` (recursing into
groups) against it: the same long option has the same short name everywhere, a short name
means one concept, a default given in the table holds in the commands listed, and every command
listed has the option. The table's exceptions are read from the same section."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from cranfield.cli import cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _section() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## One option vocabulary")
    end = text.find("\n## ", start + 3)
    return text[start:end if end > 0 else None].splitlines()


def _tables() -> list[list[list[str]]]:
    tables, current = [], []
    for line in _section():
        if line.startswith("|"):
            if not set(line) <= set("|- "):
                current.append(_cells(line))
        elif current:
            tables.append(current[1:])  # drop the header row
            current = []
    if current:
        tables.append(current[1:])
    return tables


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _spelling(text: str) -> tuple[set[str], str]:
    """``-f/--format`` -> ({'-f'}, '--format')."""
    parts = text.split("/")
    return {p for p in parts if not p.startswith("--")}, next(p for p in parts if p.startswith("--"))


def vocabulary():
    rows, exceptions = _tables()[:2]
    table = {}
    for concept, option, default, commands in rows:
        shorts, long = _spelling(_ticked(option)[0])
        table[long] = {"concept": concept, "shorts": shorts, "default": (_ticked(default) or [None])[0],
                       "commands": _ticked(commands)}
    skipped: set[tuple[str, str | None]] = set()
    for commands, option, _why in exceptions:
        longs = [None] if option == "every option" else [_spelling(o)[1] for o in _ticked(option)]
        skipped |= {(command, long) for command in _ticked(commands) for long in longs}
    return table, skipped


def commands() -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), [*path, name])
        else:
            found[" ".join(path)] = command

    walk(cli, [])
    return found


def options(command: click.Command):
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            names = [*param.opts, *param.secondary_opts]
            yield param, {n for n in names if not n.startswith("--")}, {n for n in names if n.startswith("--")}


TABLE, SKIPPED = vocabulary()
COMMANDS = commands()


def _skipped(command: str, long: str) -> bool:
    return (command, None) in SKIPPED or (command, long) in SKIPPED


def test_the_table_is_read_and_names_real_commands():
    assert {"--format", "--output", "--truth", "--test", "--seed"} <= set(TABLE)
    assert TABLE["--format"]["shorts"] == {"-f"} and TABLE["--test"]["default"] == "t"
    named = {c for row in TABLE.values() for c in row["commands"]} | {c for c, _ in SKIPPED}
    assert named <= set(COMMANDS), named - set(COMMANDS)
    assert len(COMMANDS) >= 20


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_same_concept_same_spelling(name):
    if (name, None) in SKIPPED:
        pytest.skip(f"{name} keeps its reference tool's flags")
    bad = []
    shorts_of = {}
    for long, row in TABLE.items():
        for short in row["shorts"]:
            shorts_of.setdefault(short, set()).add(long)
    for param, shorts, longs in options(COMMANDS[name]):
        for long in longs & set(TABLE):
            if not _skipped(name, long) and shorts != TABLE[long]["shorts"]:
                bad.append(f"{'/'.join(sorted(shorts | {long}))}: the table says "
                           f"{'/'.join(sorted(TABLE[long]['shorts'] | {long}))}")
        for short in shorts & set(shorts_of):
            if not (longs & shorts_of[short]) and not any(_skipped(name, long) for long in longs):
                bad.append(f"{short} means {'/'.join(sorted(shorts_of[short]))}, not {'/'.join(sorted(longs))}")
    assert not bad, f"cranfield {name}: " + "; ".join(bad)


@pytest.mark.parametrize("long", sorted(TABLE))
def test_every_listed_command_has_the_option_with_its_default(long):
    row = TABLE[long]
    for name in row["commands"]:
        found = [param for param, _, longs in options(COMMANDS[name]) if long in longs]
        assert found, f"cranfield {name} has no {long} ({row['concept']})"
        if row["default"] is not None and not _skipped(name, long):
            default = found[0].default
            assert str(default) == row["default"] or default == float(row["default"]) if _number(row["default"]) \
                else str(default) == row["default"], f"cranfield {name} {long} defaults to {default!r}, not {row['default']}"


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_one_default_paired_test():
    """compare, report and curves test pairs with the same test by default (and the Python API)."""
    import inspect

    from cranfield.report.retrieval import retrieval_study
    from cranfield.stats.compare import compare

    defaults = {name: next(p.default for p, _, longs in options(COMMANDS[name]) if "--test" in longs)
                for name in ("compare", "report", "curves")}
    assert set(defaults.values()) == {"t"}
    assert inspect.signature(compare).parameters["test"].default == "t"
    assert inspect.signature(retrieval_study).parameters["test"].default == "t"


def test_one_name_for_bootstrap_resamples(capsys):
    """`--bootstrap B` in every command that resamples; the old `--resamples` of agreement and
    online ab still works, with a warning, as the same number, and refuses to disagree."""
    from cranfield.cli import main
    from cranfield.datasets import cranfield as collection

    for name in ("agreement", "judges", "online ab", "calibration"):
        assert any("--bootstrap" in longs for _, _, longs in options(COMMANDS[name])), name
        assert not any("--resamples" in longs for _, _, longs in options(COMMANDS[name]))
    qrels = [str(collection()["qrels_raw"]), str(collection()["qrels"])]
    assert main(["agreement", *qrels, "--bootstrap", "20", "-f", "csv"]) == 0
    new = capsys.readouterr()
    assert main(["agreement", *qrels, "--resamples", "20", "-f", "csv"]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and old.err == "cranfield: warning: --resamples is deprecated; write --bootstrap\n"
    assert main(["agreement", *qrels, "--resamples", "20", "--bootstrap", "30"]) == 2
    assert "disagree: give --bootstrap only" in capsys.readouterr().err
