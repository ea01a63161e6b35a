"""Wall time per stage of a compile: `onnx-torch-mlir compile --timing` and tools/bench.py.

The stages of the whole path, in order:

- "import": the ONNX file to the torch-ONNX spelling in MLIR (our importer, or torch-mlir's
  after ONNX shape inference);
- "conversion": ONNX ops to Torch ops (ours; with `converter="torch-mlir"` this stage is
  torch-mlir's whole `torch-onnx-to-torch-backend-pipeline`, its simplification included);
- "torch-mlir simplification": torch-mlir's passes to the backend contract after our conversion;
- "backend pipeline": the backend contract to Linalg, TOSA or StableHLO;
- "writing": the module written as text or bytecode.

`stage(name)` costs nothing unless a `record()` block is active; a stage entered twice adds up,
and a stage inside another is not counted in the outer one (exclusive times, as MLIR's
timing reports a nested pass apart from its parent pipeline).
"""

from __future__ import annotations

import contextlib
import resource
import time

from . import progress

_recorders: list["StageTimes"] = []
_open_stages: list[str] = []  # the stages being timed, innermost last


class StageTimes:
    """Seconds per stage, in the order the stages first ran."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def total(self) -> float:
        return sum(self.seconds.values())


@contextlib.contextmanager
def record():
    """Collect the stages that run inside the block; yields the StageTimes."""
    times = StageTimes()
    _recorders.append(times)
    try:
        yield times
    finally:
        _recorders.remove(times)


@contextlib.contextmanager
def stage(name: str):
    """Time the block as stage `name` for every active recorder (and show it as progress)."""
    progress.stage_started(name)
    if not _recorders:
        yield
        return
    for times in _recorders:
        times.seconds.setdefault(name, 0.0)  # reported in the order the stages began
    started = time.perf_counter()
    _open_stages.append(name)
    try:
        yield
    finally:
        _open_stages.pop()
        elapsed = time.perf_counter() - started
        for times in _recorders:
            times.add(name, elapsed)
            if _open_stages:
                times.add(_open_stages[-1], -elapsed)


def peak_rss_mib() -> float:
    """The process's peak resident set so far (ru_maxrss, KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def format_report(times: StageTimes, wall_seconds: float | None = None) -> str:
    """An execution time report in the layout of MLIR's -mlir-timing."""
    total = wall_seconds if wall_seconds is not None else times.total()
    rule = "===" + "-" * 73 + "==="
    lines = [rule, "onnx-torch-mlir execution time report".center(79).rstrip(), rule]
    lines.append(f"  Total Execution Time: {total:.4f} seconds")
    lines.append(f"  Peak Resident Memory: {peak_rss_mib():.0f} MiB")
    lines.append("")
    lines.append("  ----Wall Time----  ----Name----")
    for name, seconds in times.seconds.items():
        lines.append(f"  {seconds:8.4f} ({_percent(seconds, total):5.1f}%)  {name}")
    other = total - times.total()
    if wall_seconds is not None and other > 0.0005:
        lines.append(f"  {other:8.4f} ({_percent(other, total):5.1f}%)  other (loading libraries, options)")
    lines.append(f"  {total:8.4f} (100.0%)  Total")
    return "\n".join(lines)


def _percent(part: float, total: float) -> float:
    return 100.0 * part / total if total > 0 else 0.0
