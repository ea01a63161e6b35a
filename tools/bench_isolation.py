"""What running the compiler in a child process costs (onnx_torch_mlir.isolation), on one model.

    .venv/bin/python tools/bench_isolation.py MODEL.onnx --to linalg-on-tensors --repeat 3

Command line: `onnx-torch-mlir compile` as installed (isolated: the work runs in a forked child)
against the same `main(argv)` called in-process (not isolated), each a fresh Python process,
alternating, wall-clock medians. Python API: `compile(model)` against `compile(model,
isolated=True)` (the module comes back as bytecode), in one process.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def _timed(command) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def bench_command_line(model: str, output_type: str, repeat: int) -> dict:
    output = tempfile.mktemp(suffix=".mlir")
    arguments = ["compile", model, "--to", output_type, "-o", output]
    in_process = [sys.executable, "-c", "import sys; from onnx_torch_mlir.tools.main import main; "
                  "sys.exit(main(sys.argv[1:]))", *arguments]
    isolated = [str(BIN / "onnx-torch-mlir"), *arguments]
    times = {"command line, in-process": [], "command line, isolated": []}
    try:
        for _ in range(repeat):
            times["command line, in-process"].append(_timed(in_process))
            times["command line, isolated"].append(_timed(isolated))
    finally:
        Path(output).unlink(missing_ok=True)
    return times


def bench_api(model: str, output_type: str, repeat: int) -> dict:
    import onnx_torch_mlir

    times = {"Python API, in-process": [], "Python API, isolated": []}
    for _ in range(repeat):
        for label, isolated in (("Python API, in-process", False), ("Python API, isolated", True)):
            started = time.perf_counter()
            module = onnx_torch_mlir.compile(model, output_type, isolated=isolated)
            times[label].append(time.perf_counter() - started)
            del module
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--to", default="linalg-on-tensors")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-api", action="store_true")
    args = parser.parse_args(argv)
    times = bench_command_line(args.model, args.to, args.repeat)
    if not args.skip_api:
        times |= bench_api(args.model, args.to, args.repeat)
    for label, values in times.items():
        print(f"{label}: median {statistics.median(values):.2f} s ({', '.join(f'{v:.2f}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
