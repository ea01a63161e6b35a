"""Progress of long imports on a terminal; silent when stderr is not one.

Progress counts the main graph's nodes (a node with subgraphs counts once).
"""

import sys
import time

# Imports shorter than this never print anything.
QUIET_SECONDS = 1.0


class Progress:
    def __init__(self, total: int, label: str, stream=None, enabled: bool | None = None):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.label = label
        self.done = 0
        self.started = time.monotonic()
        self.last_shown = self.started
        self.shown = False

    def advance(self, count: int = 1) -> None:
        self.done += count
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started >= QUIET_SECONDS and now - self.last_shown >= 0.2:
            self.last_shown = now
            self.shown = True
            self.stream.write(f"\r{self.label}: {self.done}/{self.total} nodes")
            self.stream.flush()

    def finish(self) -> None:
        if self.shown:
            self.stream.write(f"\r{self.label}: {self.done}/{self.total} nodes, {time.monotonic() - self.started:.1f}s\n")
            self.stream.flush()
