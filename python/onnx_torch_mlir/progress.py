"""Progress of a long compile on stderr: one line, redrawn in place, then erased.

    onnx-torch-mlir: conversion 41% (1230/3001 nodes), 3.2 s
    onnx-torch-mlir: compile: conversion 41% (1230/3001 nodes), 3.2 s     (run, verify)

Nothing is shown for the first two seconds (most compiles are done by then), when the stream is not
a terminal, or when no `shown()` block is active (the Python API never shows progress). The stages
are those of `timing.py`, which announces each one here; a stage that knows its size (the
conversion, node by node) reports a percentage. A ticker thread redraws the elapsed time while a
long MLIR pass runs. `run` and `verify` name their own stages (compile, run, compare) with
`command_stage_started`; the compile's stages show inside the first.
"""

from __future__ import annotations

import contextlib
import os
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
        self.command_stage = ""  # run/verify's stage (compile, run, compare), the compile's own inside it
        self.done = self.total = 0
        self.drawn = 0  # length of the text on screen
        self.lock = threading.Lock()

    def text(self) -> str:
        elapsed = time.perf_counter() - self.started
        part = ""
        if self.total:
            part = f" {100 * self.done // self.total}% ({self.done}/{self.total} nodes)"
        stage = self.stage if not self.command_stage or self.stage == self.command_stage else f"{self.command_stage}: {self.stage}"
        return f"onnx-torch-mlir: {stage}{part}, {elapsed:.1f} s"

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


# The terminal itself, for the child: written directly, the line is erased before the child's next
# stdout line reaches the same terminal (through the parent's stderr relay it could arrive after).
_terminal_stream = None


def remember_terminal() -> None:
    """Record whether this process's stderr is a terminal, and keep it open (call before forking)."""
    global stderr_is_terminal, _terminal_stream
    stderr_is_terminal = sys.stderr.isatty()
    if stderr_is_terminal and _terminal_stream is None:
        _terminal_stream = os.fdopen(os.dup(sys.stderr.fileno()), "w")


@contextlib.contextmanager
def shown(stream=None, enabled: bool = True):
    """Show progress on `stream` (stderr) while the block runs, if enabled and a terminal."""
    global _line
    if stream is None:  # stderr: a pipe in the command line's child, so asked before the fork
        terminal = sys.stderr.isatty() if stderr_is_terminal is None else stderr_is_terminal
        stream = _terminal_stream if terminal and _terminal_stream is not None else sys.stderr
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


def command_stage_started(name: str) -> None:
    """`run`/`verify` entered stage `name` (compile, run, compare); the compile's stages show inside it."""
    line = _line
    if line is not None:
        line.command_stage = line.stage = name
        line.done = line.total = 0
        line.draw()


def advance(done: int, total: int) -> None:
    """`done` of the current stage's `total` steps are finished."""
    line = _line
    if line is not None:
        line.done, line.total = done, total
        if done == total or done % 64 == 0:
            line.draw()
