"""Progress of a long compile on stderr: one line, redrawn in place, then erased.

    onnx-torch-mlir: conversion 41% (1230/3001 nodes), 3.2 s

Nothing is shown for the first two seconds (most compiles are done by then), when the stream is not
a terminal, or when no `shown()` block is active (the Python API never shows progress). The stages
are those of `timing.py`, which announces each one here; a stage that knows its size (the
conversion, node by node) reports a percentage. A ticker thread redraws the elapsed time while a
long MLIR pass runs.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time

DELAY_SECONDS = 2.0
_TICK_SECONDS = 0.5


class _Line:
    def __init__(self, stream):
        self.stream = stream
        self.started = time.perf_counter()
        self.stage = "starting"
        self.done = self.total = 0
        self.drawn = 0  # length of the text on screen
        self.lock = threading.Lock()

    def text(self) -> str:
        elapsed = time.perf_counter() - self.started
        part = ""
        if self.total:
            part = f" {100 * self.done // self.total}% ({self.done}/{self.total} nodes)"
        return f"onnx-torch-mlir: {self.stage}{part}, {elapsed:.1f} s"

    def draw(self) -> None:
        with self.lock:
            if time.perf_counter() - self.started < DELAY_SECONDS:
                return
            text = self.text()
            self.stream.write("\r" + text.ljust(self.drawn))
            self.stream.flush()
            self.drawn = len(text)

    def erase(self) -> None:
        with self.lock:
            if self.drawn:
                self.stream.write("\r" + " " * self.drawn + "\r")
                self.stream.flush()
                self.drawn = 0


_line: _Line | None = None
# Whether stderr is a terminal, as the command line found it before it forked the compile into a
# child whose stderr is a pipe to the parent (onnx_torch_mlir.isolation); None: ask the stream.
stderr_is_terminal: bool | None = None


def remember_terminal() -> None:
    """Record whether this process's stderr is a terminal (call before forking)."""
    global stderr_is_terminal
    stderr_is_terminal = sys.stderr.isatty()


@contextlib.contextmanager
def shown(stream=None, enabled: bool = True):
    """Show progress on `stream` (stderr) while the block runs, if enabled and a terminal."""
    global _line
    if stream is None:  # stderr: a pipe in the command line's child, so asked before the fork
        stream = sys.stderr
        terminal = stream.isatty() if stderr_is_terminal is None else stderr_is_terminal
    else:
        terminal = stream.isatty()
    if not enabled or _line is not None or not terminal:
        yield
        return
    _line = line = _Line(stream)
    stop = threading.Event()
    ticker = threading.Thread(target=_tick, args=(line, stop), daemon=True)
    ticker.start()
    try:
        yield
    finally:
        stop.set()
        ticker.join()
        line.erase()
        _line = None


def _tick(line: _Line, stop: threading.Event) -> None:
    while not stop.wait(_TICK_SECONDS):
        line.draw()


def stage_started(name: str) -> None:
    """Called by `timing.stage`: the compile entered stage `name`."""
    line = _line
    if line is not None:
        line.stage, line.done, line.total = name, 0, 0
        line.draw()


def advance(done: int, total: int) -> None:
    """`done` of the current stage's `total` steps are finished."""
    line = _line
    if line is not None:
        line.done, line.total = done, total
        if done == total or done % 64 == 0:
            line.draw()
