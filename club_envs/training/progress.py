"""What a training run shows the person watching it: a bar for every long phase, a line when one ends.

On a terminal each long phase (a generation's games, a fit, an evaluation, imitation, PPO's steps)
is a tqdm bar with its count, its rate and the time left; when the phase ends the bar gives way to
one line saying what was done and how fast. Written to a file or a pipe (``nohup``, ``| tee``, a
CI log) there are no bars: the same figures come as plain lines -- one when a phase starts, one
every :data:`FILE_EVERY` seconds while it runs, one when it ends -- with no carriage returns, so
the log of a day's run stays small and readable. Every line is flushed as it is written, so a
file shows it at once.

``Reporter(bars=False)`` (``club-envs train --no-progress``) keeps the lines and drops the bars;
:meth:`Reporter.quiet` (``--quiet``, and ``progress=False`` in Python) writes nothing. Nothing here
touches a random generator or the work itself: a run's results are the same with or without bars.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from typing import Any, TextIO

from tqdm import tqdm

FILE_EVERY = 30.0  # seconds between a phase's plain lines in a file or a pipe
TTY_MININTERVAL = 0.5  # seconds between a terminal bar's redraws


class Reporter:
    """Where a run's bars and lines go (``stream``: standard error unless given) and which it shows."""

    def __init__(self, bars: bool = True, lines: bool = True, stream: TextIO | None = None,
                 every: float = FILE_EVERY) -> None:
        self.bars, self.lines, self.every = bars, lines, every
        self._stream = stream

    @classmethod
    def quiet(cls) -> Reporter:
        """Nothing at all (warnings and errors are printed by their own code, not here)."""
        return cls(bars=False, lines=False)

    @classmethod
    def of(cls, progress: bool | Reporter | None) -> Reporter:
        """A reporter from a trainer's ``progress`` argument: a reporter as it is, True for bars and
        lines, False or None for nothing."""
        if isinstance(progress, Reporter):
            return progress
        return cls() if progress else cls.quiet()

    @property
    def stream(self) -> TextIO:
        """Looked up at each use: a test's captured ``sys.stderr`` is the one in place when writing."""
        return self._stream if self._stream is not None else sys.stderr

    def is_terminal(self) -> bool:
        """A terminal that can show a bar: a TTY of some width (a pseudo-terminal without a size
        would show bars of no width, so it gets the plain lines)."""
        isatty = getattr(self.stream, "isatty", None)
        try:
            if not (isatty and isatty()):
                return False
        except ValueError:  # a closed stream
            return False
        try:
            return os.get_terminal_size(self.stream.fileno()).columns > 0
        except (AttributeError, OSError, ValueError):  # a stream without a file descriptor
            return True

    def say(self, text: str) -> None:
        """One line, above any bar on the screen, flushed at once."""
        if not self.lines:
            return
        tqdm.write(text, file=self.stream)
        self.stream.flush()

    def phase(self, desc: str, total: int, unit: str = "game", units: str | None = None, initial: int = 0,
              summary: bool = True, **bar_options: Any) -> Phase:
        """A long phase of ``total`` ``unit``\\ s (``units``: the plural, ``unit + "s"`` unless given),
        starting at ``initial``; ``summary=False`` leaves the line at its end to the caller."""
        return Phase(self, desc, total, unit, units or f"{unit}s", initial, summary, bar_options)


class Phase:
    """One phase's bar (terminal), plain lines (file or pipe) or nothing; a context manager that
    closes itself. ``update(n)`` counts work done; ``set_postfix`` adds live figures to the bar
    and to the plain lines."""

    def __init__(self, reporter: Reporter, desc: str, total: int, unit: str, units: str, initial: int,
                 summary: bool, bar_options: Mapping[str, Any]) -> None:
        self.reporter, self.desc, self.total, self.unit, self.units = reporter, desc, int(total), unit, units
        self.n = self.initial = int(initial)
        self.summary = summary
        self.postfix: dict[str, Any] = {}
        self.started = self.last_line = time.perf_counter()
        self.closed = False
        self.bar: tqdm | None = None
        self.plain = reporter.bars and not reporter.is_terminal()
        if reporter.bars and not self.plain:
            options = {"dynamic_ncols": True, "mininterval": TTY_MININTERVAL, "smoothing": 0.1, "leave": False,
                       **bar_options}
            self.bar = tqdm(total=self.total, initial=self.initial, desc=desc, unit=unit, file=reporter.stream,
                            **options)
        elif self.plain and reporter.lines:  # what the phase is about to do, at once
            self._write(f"{desc}: {_count(self.total)} {self.plural(self.total)}"
                        + (f" from {_count(self.initial)}" if self.initial else ""))

    def __enter__(self) -> Phase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(done=exc[0] is None)

    def restart_clock(self) -> None:
        """Time the phase from now (after its slow first-use set-up, which is not its rate)."""
        self.started = self.last_line = time.perf_counter()
        if self.bar is not None:
            self.bar.reset(total=self.total)
            self.bar.update(self.initial)

    def update(self, n: int = 1) -> None:
        self.n += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.plain and self.reporter.lines:
            now = time.perf_counter()
            if now - self.last_line >= self.reporter.every:
                self.last_line = now
                self._write(self.line())

    def set_postfix(self, figures: Mapping[str, Any], refresh: bool = False) -> None:
        self.postfix = dict(figures)
        if self.bar is not None:
            self.bar.set_postfix(self.postfix, refresh=refresh)

    def plural(self, count: int) -> str:
        return self.unit if count == 1 else self.units

    def rate(self) -> float:
        """Units per second since the phase started (a resumed phase counts from ``initial``)."""
        return (self.n - self.initial) / max(1e-9, time.perf_counter() - self.started)

    def line(self) -> str:
        """The plain line of the phase so far: count, share, rate, time spent and time left."""
        elapsed = time.perf_counter() - self.started
        rate = self.rate()
        left = (self.total - self.n) / rate if rate > 0 and self.n > self.initial else None
        share = f" ({self.n / self.total:.0%})" if self.total else ""
        text = (f"{self.desc}: {_count(self.n)}/{_count(self.total)} {self.plural(self.total)}{share}, "
                f"{_rate(rate, self.units) if self.n > self.initial else 'starting'}, "
                f"{tqdm.format_interval(elapsed)} elapsed, {'?' if left is None else tqdm.format_interval(left)} left")
        return text + _figures(self.postfix)

    def close(self, done: bool = True, note: str = "") -> None:
        """The bar removed and, for a finished phase, its one line: what was done, in what time, how
        fast (``note`` appended)."""
        if self.closed:
            return
        self.closed = True
        if self.bar is not None:
            self.bar.close()
        if not (done and self.summary and self.reporter.lines):
            return
        elapsed = time.perf_counter() - self.started
        done = self.n - self.initial
        text = (f"{self.desc}: {_count(done)} {self.plural(done)} in {tqdm.format_interval(elapsed)} "
                f"({_rate(self.rate(), self.units)})")
        self._write(text + (f"; {note}" if note else "") + _figures(self.postfix))

    def _write(self, text: str) -> None:
        self.reporter.say(text)


def _count(n: int) -> str:
    return f"{n:,}"


def _rate(rate: float, units: str) -> str:
    return f"{rate:,.0f} {units}/s" if rate >= 100 else f"{rate:.3g} {units}/s"


def _figures(figures: Mapping[str, Any]) -> str:
    return "" if not figures else " [" + ", ".join(f"{k}={v}" for k, v in figures.items()) + "]"
