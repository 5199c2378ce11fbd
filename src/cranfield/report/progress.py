"""Progress on long work, on standard error, only on a terminal.

Each step is shown with its elapsed time; a step whose amount of work is known (``total``)
shows a bar, the percentage done and the estimated time left, and is advanced by the callable
that ``step`` returns.

>>> with steps(enabled=False) as step:
...     advance = step("evaluating 3 runs", total=3)
...     for _ in range(3):
...         advance()
"""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator

__all__ = ["steps", "Step"]

Step = Callable[..., Callable[..., None]]  # step(description, total=None) -> advance(n=1)


def _nothing(n: int = 1) -> None:
    return None


@contextlib.contextmanager
def steps(*, enabled: bool = True) -> Iterator[Step]:
    """Yield ``step(description, total=None)``: each call ends the previous step and starts the
    next; it returns ``advance(n=1)``, which moves a step with a ``total`` on. Nothing is shown
    when ``enabled`` is false or stderr is no terminal (the callables then do nothing)."""
    if not (enabled and sys.stderr.isatty()):
        yield lambda description, total=None: _nothing
        return
    from rich.console import Console
    from rich.progress import (BarColumn, Progress, ProgressColumn, SpinnerColumn, TaskProgressColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.text import Text

    class Known(ProgressColumn):
        """A column shown only for steps with a known total."""

        def __init__(self, column) -> None:
            super().__init__()
            self.column = column

        def render(self, task):
            return self.column.render(task) if task.total is not None else Text("")

    class Left(ProgressColumn):
        def render(self, task):
            if task.total is None:
                return Text("")
            return Text("left ") + TimeRemainingColumn().render(task)

    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), Known(BarColumn()),
                        Known(TaskProgressColumn()), TimeElapsedColumn(), Left(),
                        console=Console(stderr=True), transient=True)
    current: list = []

    def step(description: str, total: int | None = None) -> Callable[..., None]:
        if current:
            progress.update(current[-1], completed=1, total=1, visible=False)
        task = progress.add_task(description, total=total)
        current.append(task)
        if total is None:
            return _nothing
        return lambda n=1: progress.advance(task, n)

    with progress:
        yield step
