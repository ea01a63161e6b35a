"""`onnx-torch-mlir run` on real-size models: our reference runner against IREE on the same Linalg.

    .venv/bin/python tools/bench_runner.py [--update] [-k NAME] [--repeat N]

Each measurement is a fresh `onnx-torch-mlir run MODEL --to linalg-on-tensors --save OUT.npz`
process: compiling the model, lowering and JIT-compiling it, one call (on the zoo's inputs for BERT-base,
seeded made-up ones for ResNet-50). Ours runs twice: cold (an empty program cache, which the run
fills) and cached (the same command again: the compiled program comes from the cache,
runtime/program_cache.py). The peer is
the same command with `--consumer iree` (IREE compiles and runs the same Linalg), alternating with
ours in the same run. Wall time and peak resident memory come from wait4; both outputs are compared.
Models: BERT-base (the zoo's bert-base-torchscript-static, 417 MiB of weights) and ResNet-50
(transformers' ResNetConfig defaults with seeded random weights, TorchScript export, 94 MiB; built
into the cache on first use). Issue 13's targets: ResNet-50 under 15 s and 1.5 GiB, BERT-base under
30 s. `--update` writes docs/runner-performance.md (`make bench` runs it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
DOCUMENT = REPOSITORY / "docs" / "runner-performance.md"
CLI = Path(sys.executable).parent / "onnx-torch-mlir"
CONSUMERS = ("reference", "reference-cached", "iree")
NOTES_HEADING = "## Measurements by hand"
TARGETS = {"resnet50-torchscript": (15.0, 1.5 * 1024), "bert-base-torchscript-static": (30.0, None)}


def cache_directory() -> Path:
    return Path(os.environ.get("ONNX_TORCH_MLIR_CACHE", Path.home() / ".cache" / "onnx-torch-mlir")) / "bench"


def resnet50() -> Path:
    """ResNet-50 at its real size, exported once into the cache."""
    path = cache_directory() / "resnet50-torchscript" / "model.onnx"
    if path.exists():
        return path
    import torch
    import transformers

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    model = transformers.ResNetForImageClassification(transformers.ResNetConfig()).eval()
    example = torch.randn(1, 3, 224, 224)
    partial = path.with_suffix(".partial")
    torch.onnx.export(model, (example,), str(partial), input_names=["pixel_values"], output_names=["logits"],
                      dynamo=False, opset_version=17)
    partial.rename(path)
    return path


def bert_base() -> Path:
    sys.path.insert(0, str(REPOSITORY / "test" / "models"))
    import build_zoo  # noqa: PLC0415 - the zoo's own code finds (or builds) the cached model

    model = next(m for m in build_zoo.select(["bert-base-torchscript-static"]) if m.name == "bert-base-torchscript-static")
    result = build_zoo.ensure_built(model)
    if not result.ok:
        raise SystemExit(f"bench_runner: bert-base: the zoo build failed ({result.stage}: {result.error})")
    return result.model_path


MODELS = {"resnet50-torchscript": resnet50, "bert-base-torchscript-static": bert_base}


def built(name: str) -> Path:
    """The model's path, built in a child process: a fork of a process that imported torch would
    count torch's memory in the measured processes' peak."""
    result = subprocess.run([sys.executable, __file__, "--build", name], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"bench_runner: building {name} failed: {result.stderr.strip()[-400:]}")
    return Path(result.stdout.strip().splitlines()[-1])


def input_options(model: Path, work: Path) -> list[str]:
    """`--input NAME=FILE` for the inputs the zoo stored next to the model (real token ids: made-up
    integers index past BERT's two token types, where any result is as good as another); none for a
    model without them (its inputs are made up from the default seed)."""
    reference = model.parent / "reference.npz"
    if not reference.exists():
        return []
    import numpy as np
    import onnx

    graph = onnx.load(str(model), load_external_data=False).graph
    initializers = {initializer.name for initializer in graph.initializer}
    names = [value.name for value in graph.input if value.name not in initializers]
    arrays = np.load(reference)
    options = []
    for index, name in enumerate(names):
        path = work / f"{model.parent.name}.input{index}.npy"
        np.save(path, arrays[f"input.{index}"])
        options += ["--input", f"{name}={path}"]
    return options


def run_once(model: Path, consumer: str, output: Path, inputs: list[str], program_cache: Path) -> dict:
    """One `run` process; `program_cache` is the runner's program cache directory (the cold run of
    ours gets a new one, the cached run the one the cold run filled)."""
    command = [str(CLI), "run", str(model), "--to", "linalg-on-tensors", "--consumer", consumer.split("-")[0],
               "--save", str(output), *inputs]
    environment = dict(os.environ, ONNX_TORCH_MLIR_PROGRAM_CACHE=str(program_cache))
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.PIPE, env=environment)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        return {"error": (stderr.strip().splitlines() or ["failed"])[-1][:200]}
    return {"wall": wall, "peak_mib": usage.ru_maxrss / 1024}


def outputs_difference(first: Path, second: Path) -> float:
    import numpy as np

    a, b = np.load(first), np.load(second)
    return max(float(np.max(np.abs(a[name].astype(np.float64) - b[name].astype(np.float64)))) for name in a.files)


def outputs_identical(first: Path, second: Path) -> bool:
    import numpy as np

    a, b = np.load(first), np.load(second)
    return a.files == b.files and all(np.array_equal(a[name], b[name], equal_nan=True) for name in a.files)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", dest="only", help="only the model of this name")
    parser.add_argument("--repeat", type=int, default=1, help="runs per consumer (medians)")
    parser.add_argument("--update", action="store_true", help="write docs/runner-performance.md")
    parser.add_argument("--build", choices=sorted(MODELS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build:
        print(MODELS[args.build]())
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as work:
        for name in MODELS:
            if args.only and args.only != name:
                continue
            model = built(name)
            inputs = input_options(model, Path(work))
            runs = {consumer: [] for consumer in CONSUMERS}
            errors = {}
            for index in range(args.repeat):
                programs = Path(work) / f"programs-{name}-{index}"
                for consumer in CONSUMERS:
                    measured = run_once(model, consumer, Path(work) / f"{name}.{consumer}.{index}.npz", inputs, programs)
                    if "error" in measured:
                        errors[consumer] = measured["error"]
                    else:
                        runs[consumer].append(measured)
            difference = None
            if all(runs.values()):
                difference = outputs_difference(Path(work) / f"{name}.reference.0.npz", Path(work) / f"{name}.iree.0.npz")
                if not outputs_identical(Path(work) / f"{name}.reference.0.npz", Path(work) / f"{name}.reference-cached.0.npz"):
                    errors["reference-cached"] = "outputs differ from the cold run's"
                    runs["reference-cached"] = []
            row = (name, model.stat().st_size, runs, errors, difference)
            rows.append(row)
            print(describe(row), flush=True)
    if args.update:
        write_document(rows, args.repeat)
    return 0


def _median(runs: list[dict], key: str) -> float | None:
    return statistics.median(run[key] for run in runs) if runs else None


def _cell(runs: dict, errors: dict, consumer: str) -> str:
    """One consumer's median wall time and peak, or why it failed."""
    if not runs[consumer]:
        return f"failed: {errors.get(consumer, '')}"
    return f"{_median(runs[consumer], 'wall'):.1f} s, {_median(runs[consumer], 'peak_mib'):.0f} MiB"


def describe(row) -> str:
    name, size, runs, errors, difference = row
    parts = [f"{consumer} {_cell(runs, errors, consumer)}" for consumer in CONSUMERS]
    return f"{name} ({size / 2**20:.0f} MiB): " + "; ".join(parts) + (f"; max |ours - IREE| {difference:.2g}" if difference is not None else "")


def write_document(rows, repeat: int) -> None:
    """The tables; the section under NOTES_HEADING (measurements made by hand) is kept as it was."""
    load = os.getloadavg()[0]
    out = ["# The reference runner on real-size models", "",
           "Written by `tools/bench_runner.py --update` (`make bench`); do not edit by hand above "
           f"\"{NOTES_HEADING[3:]}\".", "",
           " ".join(__doc__.split("\n\n")[1].split()), "",
           " ".join(__doc__.split("\n\n")[2].split()), "",
           f"Machine: {os.cpu_count()} cores; load average {load:.1f} when written; {repeat} run(s) per cell (medians).", "",
           "| model | weights | `run` (ours, cold) | `run` (ours, cached) | `run --consumer iree` | cold / IREE | "
           "cached / IREE | max abs difference | target (cold) |",
           "|---|---|---|---|---|---|---|---|---|"]
    for name, size, runs, errors, difference in rows:
        cells = [_cell(runs, errors, consumer) for consumer in CONSUMERS]
        ratios = [_ratio(runs, consumer) for consumer in ("reference", "reference-cached")]
        seconds, mib = TARGETS.get(name, (None, None))
        target = ""
        if seconds is not None and runs["reference"]:
            met = _median(runs["reference"], "wall") < seconds and (mib is None or _median(runs["reference"], "peak_mib") < mib)
            target = f"under {seconds:.0f} s" + (f" and {mib / 1024:.1f} GiB" if mib else "") + (": met" if met else ": **not met**")
        out.append(f"| {name} | {size / 2**20:.0f} MiB | {' | '.join(cells)} | {' | '.join(ratios)} | "
                   f"{'' if difference is None else f'{difference:.2g}'} | {target} |")
    notes = ""
    if DOCUMENT.exists() and NOTES_HEADING in DOCUMENT.read_text():
        notes = DOCUMENT.read_text()[DOCUMENT.read_text().index(NOTES_HEADING):]
    DOCUMENT.write_text("\n".join(out) + "\n" + ("\n" + notes if notes else ""))
    print(f"wrote {DOCUMENT.relative_to(REPOSITORY)}")


def _ratio(runs: dict, consumer: str) -> str:
    if not runs[consumer] or not runs["iree"]:
        return ""
    return f"{_median(runs[consumer], 'wall') / _median(runs['iree'], 'wall'):.2f}"


if __name__ == "__main__":
    sys.exit(main())
