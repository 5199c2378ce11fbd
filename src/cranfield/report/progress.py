"""Progress on long work: a rich spinner per step on standard error, only on a terminal.

>>> with steps(enabled=False) as step:
...     step("evaluating")
"""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator

__all__ = ["steps"]


@contextlib.contextmanager
def steps(*, enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """Yield ``step(description)``: each call ends the previous step and starts the next, shown
    with its elapsed time. Nothing is shown when ``enabled`` is false or stderr is no terminal."""
    if not (enabled and sys.stderr.isatty()):
        yield lambda description: None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                        console=Console(stderr=True), transient=True)
    current: list = []

    def step(description: str) -> None:
        if current:
            progress.update(current[-1], completed=1, total=1, visible=False)
        current.append(progress.add_task(description, total=None))

    with progress:
        yield step
