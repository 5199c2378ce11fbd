"""The input files of a command: found among its parsed parameters and registered with
:func:`cranfield.io.atomic.reading` while it runs, so that no output can overwrite an input."""

from __future__ import annotations

import copy
import functools
import os

import click

# Parameters that name outputs; every other argument, click.Path option or FILE option is an input.
OUTPUT_PARAMETERS = frozenset({"output", "output_dir", "stats", "html", "merged"})  # stats, html: pool, reusability; merged: judges


def input_paths(command: click.Command, params: dict) -> list[str]:
    """The input file names among a command's parsed parameters."""
    paths = []
    for param in command.params:
        if param.name in OUTPUT_PARAMETERS or param.name not in params:
            continue
        metavar = getattr(param, "metavar", None) or ""
        if isinstance(param, click.Argument) or isinstance(param.type, click.Path) or "FILE" in metavar:
            value = params[param.name]
            for item in value if isinstance(value, (tuple, list)) else (value,):
                if isinstance(item, (str, os.PathLike)):
                    paths.append(os.fspath(item))
    return paths


def _registering_inputs(command: click.Command) -> click.Command:
    """A copy of ``command`` whose callback runs with its input files registered as inputs."""
    original = command.callback
    if original is None:
        return command

    def callback(**params):
        from ..io.atomic import check_output, reading  # lazy (start-up): `cranfield --version` stays light

        with reading(input_paths(command, params)):
            if isinstance(params.get("output"), str):
                check_output(params["output"])  # before any work; the writer checks again
            return original(**params)

    registering = copy.copy(command)
    registering.callback = functools.update_wrapper(callback, original)
    return registering
