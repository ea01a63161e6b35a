"""Whole-path benchmark: an ONNX file to each backend, written as bytecode and as text, ours
against torch-mlir's path, in one run. Writes docs/performance.md with --update.

    .venv/bin/python tools/bench.py [-k resnet] [--jobs 1] [--repeat 3] [--update]

Each measurement is one fresh process doing what a user's compile does: load the libraries,
read the ONNX file, compile, write the output file. The process reports its own per-stage wall
times (onnx_torch_mlir.timing, the stages of `compile --timing`) and its peak resident memory
(VmHWM from /proc: the whole process, libraries included); the parent measures the process's
wall time. Ours is `onnx_torch_mlir.compile` (our importer, our conversion, torch-mlir's
simplification and backend pipeline). torch-mlir's path is its own: its importer after ONNX shape
inference with data propagation (the way its `torch_mlir.tools.import_onnx` loads a model, through
files past 2 GB), `torch-onnx-to-torch-backend-pipeline` (its conversion and simplification in one
pipeline, so one stage), then the same backend pipeline. The two paths alternate, `--repeat`
times each; tables show medians.

Models: zoo transformers and CNNs (test/models, built into the zoo cache when missing) and a
generated model over 2 GB whose weights are external data (kept in --work-dir between runs).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
FORMATS = ("bytecode", "text")
PATHS = ("ours", "torch-mlir")
STAGES = ("import", "conversion", "torch-mlir simplification", "backend pipeline", "writing")
# Zoo models measured: transformers, then CNNs. BERT-base, GPT-2 small and ViT-B/16 have their real
# 86-124M parameters; the others are the zoo's reduced configurations (real graphs, small weights).
ZOO_MODELS = (
    "bert-base-torchscript-static",
    "gpt2-base-dynamo-static",
    "vit-base-dynamo-static",
    "gpt2-dynamo-static",
    "vit-dynamo-static",
    "resnet-torchscript-static",
    "convnext-torchscript-static",
)
TRANSFORMERS = ("bert", "gpt2", "vit", "distilbert", "llama", "t5", "whisper")
RUN_TIMEOUT_SECONDS = 1800
# docs/performance.md below this line is written by hand; --update keeps it.
NOTES_MARKER = "<!-- Notes below this line are written by hand; tools/bench.py --update keeps them. -->"

CHILD = textwrap.dedent(
    """
    import json, os, sys, time
    started = time.perf_counter()
    path, backend, output_format, output, which = sys.argv[1:6]
    from onnx_torch_mlir import timing
    from onnx_torch_mlir.mlir_passes import TORCH_TO_BACKEND, run_passes

    def peak_mib():
        with open("/proc/self/status") as status:
            return int(next(l for l in status if l.startswith("VmHWM:")).split()[1]) / 1024

    libraries_mib = peak_mib()  # MLIR's Python bindings loaded: what any path holds before a model

    def torch_mlir_model(path):
        # As torch_mlir.tools.import_onnx loads it: shape inference with data propagation, in
        # memory, or through files when the model is over protobuf's 2 GB.
        import onnx
        if os.path.getsize(path) < 2**31 and not any(n.endswith(".data") or n.endswith(".bin") for n in os.listdir(os.path.dirname(path))):
            return onnx.shape_inference.infer_shapes(onnx.load(path), data_prop=True)
        inferred = output + ".inferred.onnx"
        onnx.shape_inference.infer_shapes_path(path, inferred, data_prop=True)
        model = onnx.load(inferred, load_external_data=False)
        onnx.load_external_data_for_model(model, os.path.dirname(path))
        os.unlink(inferred)
        return model

    def compile_torch_mlir():
        from torch_mlir.extras import onnx_importer
        from onnx_torch_mlir.mlir_context import make_context
        from onnx_torch_mlir.peers import convert_with_torch_mlir
        with timing.stage("import"):
            info = onnx_importer.ModelInfo(torch_mlir_model(path))
            module = info.create_module(context=make_context())
            onnx_importer.NodeImporter.define_function(info.main_graph, module.operation).import_all()
        with timing.stage("conversion"):
            convert_with_torch_mlir(module)
        with timing.stage("backend pipeline"):
            run_passes(module, TORCH_TO_BACKEND[backend], stage=f"torch-to-{backend}")
        return module

    with timing.record() as times:
        if which == "ours":
            from onnx_torch_mlir.compiler import compile
            module = compile(path, backend)
        else:
            module = compile_torch_mlir()
        with timing.stage("writing"):
            if output_format == "bytecode":
                with open(output, "wb") as stream:
                    module.operation.write_bytecode(stream)
            else:
                with open(output, "w") as stream:
                    stream.write(str(module))
    in_process = time.perf_counter() - started
    print(json.dumps({"stages": times.seconds, "libraries": in_process - times.total(), "in_process": in_process,
                      "peak_mib": peak_mib(), "libraries_mib": libraries_mib,
                      "output_bytes": os.path.getsize(output)}))
    """
)


@dataclass
class Model:
    name: str
    path: Path
    kind: str  # transformer, cnn, generated
    weight_bytes: int
    formats: tuple = FORMATS


@dataclass
class Cell:
    model: Model
    backend: str
    output_format: str
    runs: dict = field(default_factory=lambda: {path: [] for path in PATHS})
    errors: dict = field(default_factory=dict)
    done: bool = False
    repeat: int = 3


def weight_bytes(path: Path) -> int:
    """The model file plus its external data files."""
    return path.stat().st_size + sum(p.stat().st_size for p in path.parent.iterdir() if p.suffix in (".data", ".bin"))


def zoo_model(name: str) -> Model | None:
    sys.path.insert(0, str(REPOSITORY / "test" / "models"))
    import build_zoo  # noqa: PLC0415 - the zoo's own code finds (or builds) the cached model

    chosen = build_zoo.select([name])
    chosen = [model for model in chosen if model.name == name]
    if not chosen:
        return None
    result = build_zoo.ensure_built(chosen[0])
    if not result.ok:
        print(f"bench: {name}: the zoo build failed ({result.stage}: {result.error})", file=sys.stderr)
        return None
    kind = "transformer" if name.split("-")[0] in TRANSFORMERS else "cnn"
    return Model(name, result.model_path, kind, weight_bytes(result.model_path))


def generated_model(work_dir: Path, gib: float) -> Model:
    """An MLP over 2 GB: static batch 1, `layers` MatMul+Add+Relu of 8192x8192 float32 weights, all
    external data in one file written a layer at a time (never held in memory whole)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    width = 8192
    layers = max(1, round(gib * 2**30 / (width * width * 4)))
    directory = work_dir / f"mlp-{layers}x{width}-external"
    path = directory / "model.onnx"
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        data = directory / "model.onnx.data"
        nodes, initializers, offset = [], [], 0
        rng = np.random.default_rng(0)
        with open(data, "wb") as stream:
            for layer in range(layers):
                for name, shape in ((f"w{layer}", (width, width)), (f"b{layer}", (width,))):
                    array = (rng.standard_normal(shape, dtype=np.float32) / np.sqrt(width)).astype(np.float32)
                    stream.write(array.tobytes())
                    tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=list(shape))
                    tensor.data_location = TensorProto.EXTERNAL
                    for key, value in (("location", data.name), ("offset", offset), ("length", array.nbytes)):
                        tensor.external_data.add(key=key, value=str(value))
                    offset += array.nbytes
                    initializers.append(tensor)
                previous = "x" if layer == 0 else f"h{layer - 1}"
                nodes.append(helper.make_node("MatMul", [previous, f"w{layer}"], [f"m{layer}"]))
                nodes.append(helper.make_node("Add", [f"m{layer}", f"b{layer}"], [f"a{layer}"]))
                nodes.append(helper.make_node("Relu", [f"a{layer}"], ["y" if layer == layers - 1 else f"h{layer}"]))
        graph = helper.make_graph(
            nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, width])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, width])], initializers,
        )
        path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    # Text output of a model this size is 2x its weights in hex: measured as bytecode only.
    return Model(directory.name, path, "generated", weight_bytes(path), formats=("bytecode",))


def child_environment(work_dir: Path) -> dict:
    """The measured processes' environment: Python's bytecode cache on, kept in `work_dir`.

    An installed package's modules are compiled to bytecode once (pip does it at install time).
    A session that sets PYTHONDONTWRITEBYTECODE, on this checkout's sources, would instead
    compile each of our modules from source in every run (0.4-0.7 s; docs/performance.md, the
    notes), a cost no user pays and torch-mlir's installed path never does. The cache lives in
    `work_dir`, not in the source tree, and `warm_bytecode_cache` fills it before the first run.
    """
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment["PYTHONPYCACHEPREFIX"] = str(work_dir / "pycache")
    return environment


def warm_bytecode_cache(work_dir: Path) -> None:
    environment = child_environment(work_dir)
    package = REPOSITORY / "python" / "onnx_torch_mlir"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], env=environment, capture_output=True)
    imports = ("import onnx_torch_mlir.compiler, onnx_torch_mlir.conversion, onnx_torch_mlir.peers, onnx; "
               "from torch_mlir.extras import onnx_importer")
    subprocess.run([sys.executable, "-c", imports], env=environment, capture_output=True)


def run_once(cell: Cell, which: str, work_dir: Path) -> dict:
    suffix = "mlirbc" if cell.output_format == "bytecode" else "mlir"
    output = work_dir / f"{cell.model.name}.{cell.backend}.{which}.{os.getpid()}.{time.monotonic_ns()}.{suffix}"
    command = [sys.executable, "-c", CHILD, str(cell.model.path), cell.backend, cell.output_format, str(output), which]
    started = time.perf_counter()
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS,
                                env=child_environment(work_dir))
    except subprocess.TimeoutExpired:
        return {"error": f"no result within {RUN_TIMEOUT_SECONDS} s"}
    finally:
        output.unlink(missing_ok=True)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        lines = [line for line in result.stderr.strip().splitlines() if line.strip()] or [f"exit status {result.returncode}"]
        return {"error": lines[-1].strip()[:160]}
    measured = json.loads(result.stdout.strip().splitlines()[-1])
    measured["wall"] = wall
    return measured


def measure(cells: list[Cell], jobs: int, work_dir: Path, on_cell=None) -> None:
    """Every cell its `repeat` times, ours and torch-mlir's alternating; `jobs` cells at a time.
    `on_cell` is called after each cell (the report is rewritten, so a run cut short keeps its numbers)."""

    def measure_cell(cell: Cell) -> Cell:
        for _ in range(cell.repeat):
            for which in PATHS:
                if which in cell.errors:
                    continue
                outcome = run_once(cell, which, work_dir)
                if "error" in outcome:
                    cell.errors[which] = outcome["error"]
                else:
                    cell.runs[which].append(outcome)
        cell.done = True
        print(summary_line(cell), flush=True)
        if on_cell is not None:
            on_cell()
        return cell

    warm_bytecode_cache(work_dir)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(measure_cell, cells))


def median_of(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def median_stage(runs: list[dict], stage: str) -> float | None:
    values = [run["stages"][stage] for run in runs if stage in run["stages"]]
    return statistics.median(values) if values else None


def cell_value(cell: Cell, which: str) -> str:
    if which in cell.errors:
        return f"failed: {cell.errors[which]}"
    runs = cell.runs[which]
    return f"{median_of(runs, 'wall'):.2f} s, {median_of(runs, 'peak_mib'):.0f} MiB" if runs else "-"


def ratios(cell: Cell) -> tuple[float, float, float] | None:
    """Wall, peak memory and compile-stage (wall less interpreter and library loading) ratios."""
    ours, theirs = cell.runs["ours"], cell.runs["torch-mlir"]
    if not ours or not theirs or cell.errors:
        return None
    stages = lambda runs: statistics.median(sum(run["stages"].values()) for run in runs)  # noqa: E731
    return (median_of(ours, "wall") / median_of(theirs, "wall"), median_of(ours, "peak_mib") / median_of(theirs, "peak_mib"),
            stages(ours) / stages(theirs))


def summary_line(cell: Cell) -> str:
    ratio = ratios(cell)
    shown = f"time x{ratio[0]:.2f} (stages x{ratio[2]:.2f}), memory x{ratio[1]:.2f}" if ratio else ""
    return (f"{cell.model.name:34} {cell.backend:18} {cell.output_format:8} ours {cell_value(cell, 'ours'):28} "
            f"torch-mlir {cell_value(cell, 'torch-mlir'):28} {shown}")


def mib(byte_count: int) -> str:
    return f"{byte_count / 2**20:.0f} MiB" if byte_count >= 2**20 else f"{byte_count / 2**10:.0f} KiB"


def machine_description(jobs: int, seconds: float | None) -> str:
    """The machine, and (for a run just made, `seconds` given) its length and the load at its end."""
    memory = next((line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal:")), "0")
    text = (f"{os.cpu_count()} cores, {int(memory) / 2**20:.0f} GiB, {platform.python_implementation()} "
            f"{platform.python_version()}; {jobs} measurement(s) at a time")
    if seconds is None:
        return text + "."
    load = os.getloadavg()
    return text + f"; load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}; the run took {seconds / 60:.1f} min."


def repeat_description(cells: list[Cell]) -> str:
    counts = sorted({cell.repeat for cell in cells})
    if len(counts) <= 1:
        return f"Each number is the median of {counts[0] if counts else 0} runs (the runs column)."
    return ("Bytecode cells are medians of several runs and text cells, and the over-2-GB model's TOSA and "
            "StableHLO cells, single runs, to keep `make bench` near 20 minutes (`--full-repeat`: all cells "
            "alike); the runs column says which.")


def cell_repeat(model: Model, backend: str, output_format: str, repeat: int, full: bool) -> int:
    """`repeat` for the cells that decide the criteria (bytecode; Linalg for the generated model), else 1."""
    if full:
        return repeat
    if output_format != "bytecode" or (model.kind == "generated" and backend != "linalg-on-tensors"):
        return 1
    return repeat


def report(cells: list[Cell], repeat: int, jobs: int, seconds: float | None, note: str) -> str:
    models = list(dict.fromkeys(cell.model.name for cell in cells))
    lines = [
        "# Performance: the whole path, ONNX file to each backend",
        "",
        f"Written by `make bench` (`tools/bench.py`). {repeat_description(cells)} Ours and torch-mlir's "
        "path alternate; each run is a fresh process that "
        "loads the libraries, reads the ONNX file, compiles and writes the output file. **Wall** is "
        "that process's wall time; **peak** its peak resident memory (VmHWM, libraries included, "
        "about 130 MiB before any model). torch-mlir's path: its importer after ONNX shape inference "
        "with data propagation, `torch-onnx-to-torch-backend-pipeline`, the same backend pipeline. "
        "Ratios are ours over torch-mlir's (below 1: we are faster or smaller); the *stages ratio* "
        "leaves out starting Python and loading the libraries (the sum of the stages below). The "
        "generated model over 2 GB is written as bytecode only: as text it would be twice its weights in hex.",
        "",
        f"Machine: {machine_description(jobs, seconds)}" + (f" {note}" if note else ""),
        "",
        "`onnx-torch-mlir compile MODEL --to BACKEND --timing` prints the same stages for any model.",
        "",
        "## Wall time and peak memory",
        "",
        "| model | weights | backend | output | runs | ours | torch-mlir's | wall ratio | stages ratio | peak ratio | our peak / weights |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in cells:
        ratio = ratios(cell)
        ours = cell.runs["ours"]
        per_weight = f"{median_of(ours, 'peak_mib') * 2**20 / cell.model.weight_bytes:.1f}" if ours else "-"
        lines.append(
            f"| {cell.model.name} | {mib(cell.model.weight_bytes)} | {cell.backend} | {cell.output_format} | {cell.repeat} | "
            f"{cell_value(cell, 'ours')} | {cell_value(cell, 'torch-mlir')} | "
            f"{f'{ratio[0]:.2f}' if ratio else '-'} | {f'{ratio[2]:.2f}' if ratio else '-'} | "
            f"{f'{ratio[1]:.2f}' if ratio else '-'} | {per_weight} |"
        )
    lines += criteria(cells)
    lines += [
        "",
        "## Time per stage (Linalg, bytecode)",
        "",
        "Seconds, medians. torch-mlir's conversion and simplification are one pipeline, shown under "
        "conversion. *libraries*: the time in the process outside the stages (loading MLIR and the "
        "package's modules; Python's own start is in wall only).",
        "",
        "| model | path | libraries | " + " | ".join(STAGES) + " | wall |",
        "|---|---|---|" + "---|" * len(STAGES) + "---|",
    ]
    for name in models:
        cell = next((c for c in cells if c.model.name == name and c.backend == "linalg-on-tensors" and c.output_format == "bytecode"), None)
        if cell is None:
            continue
        for which in PATHS:
            runs = cell.runs[which]
            if not runs:
                continue
            stages = [median_stage(runs, stage) for stage in STAGES]
            shown = [f"{value:.2f}" if value is not None else "-" for value in stages]
            lines.append(f"| {name} | {which} | {median_of(runs, 'libraries'):.2f} | " + " | ".join(shown)
                         + f" | {median_of(runs, 'wall'):.2f} |")
    return "\n".join(lines) + "\n"


def cells_from_json(cells: list[Cell], path: Path) -> list[Cell]:
    """The selected cells with the runs a --json file recorded (cells it lacks are left out)."""
    recorded = {(entry["model"], entry["backend"], entry["format"]): entry for entry in json.loads(path.read_text())}
    kept = []
    for cell in cells:
        entry = recorded.get((cell.model.name, cell.backend, cell.output_format))
        if entry is not None:
            cell.runs, cell.errors, cell.done = entry["runs"], entry["errors"], True
            kept.append(cell)
    return kept


def kept_notes(path: Path) -> str:
    """The hand-written part of an existing report (from NOTES_MARKER on), or just the marker."""
    text = path.read_text() if path.exists() else ""
    return "\n" + (text[text.index(NOTES_MARKER):] if NOTES_MARKER in text else NOTES_MARKER + "\n")


def criteria(cells: list[Cell]) -> list[str]:
    """Issue 13's targets, to Linalg as bytecode: wall at most 0.3 of torch-mlir's path, peak below
    twice the weight bytes, for every transformer and the generated model.

    A target below what no path of ours can avoid is marked impossible, with the measurement
    (_wall_verdict; for memory, what MLIR's Python libraries hold once loaded against twice the
    weights)."""
    lines = ["", "## Targets (Linalg, bytecode)", "",
             "*impossible* marks a target below what no path of ours can avoid: for the wall, starting Python and "
             "loading MLIR's Python libraries (measured on torch-mlir's own path: its wall less its stages) plus "
             "torch-mlir's simplification and backend pipeline and MLIR's bytecode writer putting the weights into "
             "the file (our path's stages); for memory, what those libraries hold once loaded (measured in each "
             "run before the model is read).",
             "", "| model | wall ratio (target <= 0.3) | stages ratio | our peak / weights (target < 2) |",
             "|---|---|---|---|"]
    for cell in cells:
        if cell.backend != "linalg-on-tensors" or cell.output_format != "bytecode" or cell.model.kind == "cnn":
            continue
        ratio = ratios(cell)
        ours, theirs = cell.runs["ours"], cell.runs["torch-mlir"]
        per_weight = median_of(ours, "peak_mib") * 2**20 / cell.model.weight_bytes if ours else None
        lines.append(f"| {cell.model.name} ({mib(cell.model.weight_bytes)}) | {_wall_verdict(ratio, theirs, ours)} | "
                     f"{f'{ratio[2]:.2f}' if ratio else '-'} | {_peak_verdict(per_weight, ours, cell.model.weight_bytes)} |")
    return lines


# Stages of our path that are MLIR's or torch-mlir's own work, not ours to make faster.
NOT_OURS = ("torch-mlir simplification", "backend pipeline", "writing")


def _wall_verdict(ratio, theirs: list[dict], ours: list[dict]) -> str:
    """met / not met, or impossible when what no path of ours can avoid already exceeds 0.3 of
    torch-mlir's wall: starting Python and loading MLIR's libraries (torch-mlir's own path: its
    wall less its stages), torch-mlir's simplification and backend pipeline, and MLIR's bytecode
    writer putting the weights into the file (our path's stages)."""
    if not ratio:
        return "-"
    if ratio[0] <= 0.3:
        return f"{ratio[0]:.2f} met"
    wall = median_of(theirs, "wall")
    start = statistics.median(run["wall"] - sum(run["stages"].values()) for run in theirs)
    floor = start + sum(median_stage(ours, stage) or 0.0 for stage in NOT_OURS)
    if floor > 0.3 * wall:
        return (f"{ratio[0]:.2f} impossible: start and libraries {start:.2f} s + torch-mlir's passes and "
                f"MLIR's writing {floor - start:.2f} s > 0.3 x {wall:.2f} s")
    return f"{ratio[0]:.2f} not met"


def _peak_verdict(per_weight, ours: list[dict], weight_bytes: int) -> str:
    if per_weight is None:
        return "-"
    if per_weight < 2:
        return f"{per_weight:.2f} met"
    if all("libraries_mib" in run for run in ours):
        floor = median_of(ours, "libraries_mib")
        if floor * 2**20 > 2 * weight_bytes:
            return f"{per_weight:.2f} impossible: libraries {floor:.0f} MiB > 2 x {mib(weight_bytes)}"
    return f"{per_weight:.2f} not met"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", "--filter", action="append", default=[], help="only models whose name contains this (repeatable)")
    parser.add_argument("--backend", action="append", choices=BACKENDS, help="repeatable; default: all three")
    parser.add_argument("--format", action="append", choices=FORMATS, help="repeatable; default: bytecode and text")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each path per bytecode cell (default 3; medians)")
    parser.add_argument("--full-repeat", action="store_true", help="--repeat runs for every cell (text too)")
    parser.add_argument("--jobs", type=int, default=1, help="cells measured at a time (default 1: the numbers are cleanest)")
    parser.add_argument("--big-gib", type=float, default=2.25, help="size of the generated external-data model (default 2.25)")
    parser.add_argument("--skip-big", action="store_true", help="leave out the generated model over 2 GB")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "onnx-torch-mlir-bench")
    parser.add_argument("--update", action="store_true", help="write docs/performance.md")
    parser.add_argument("--output", type=Path, default=REPOSITORY / "docs" / "performance.md")
    parser.add_argument("--note", default="", help="a sentence for the report (e.g. other work loading the machine)")
    parser.add_argument("--json", type=Path, help="also write every run's measurements here")
    parser.add_argument("--from-json", type=Path, help="measure nothing: rewrite the report from a --json file")
    args = parser.parse_args(argv)
    args.work_dir.mkdir(parents=True, exist_ok=True)

    wanted = lambda name: not args.filter or any(pattern in name for pattern in args.filter)  # noqa: E731
    models = [model for model in (zoo_model(name) for name in ZOO_MODELS if wanted(name)) if model is not None]
    if not args.skip_big and (not args.filter or any(pattern in "mlp-external generated" for pattern in args.filter)):
        models.insert(1, generated_model(args.work_dir, args.big_gib))  # the long ones first: a cut-short run keeps them
    cells = [
        Cell(model, backend, output_format, repeat=cell_repeat(model, backend, output_format, args.repeat, args.full_repeat))
        for model in models
        for backend in args.backend or BACKENDS
        for output_format in args.format or FORMATS
        if output_format in model.formats
    ]
    if args.from_json:
        cells = cells_from_json(cells, args.from_json)
    if not cells:
        print("bench: no model selected", file=sys.stderr)
        return 2
    started = time.perf_counter()

    def write_outputs(final: bool = False) -> None:
        finished = [cell for cell in cells if cell.done]
        seconds = None if args.from_json else time.perf_counter() - started
        note = args.note if final else f"{args.note} (partial: {len(finished)} of {len(cells)} measurements so far)".strip()
        if args.json:
            args.json.write_text(json.dumps([{"model": c.model.name, "backend": c.backend, "format": c.output_format,
                                              "runs": c.runs, "errors": c.errors} for c in finished], indent=1))
        if args.update:
            args.output.write_text(report(finished, args.repeat, args.jobs, seconds, note) + kept_notes(args.output))
        if final:
            print(f"bench: wrote {args.output}" if args.update else report(finished, args.repeat, args.jobs, seconds, note))

    if not args.from_json:
        measure(cells, args.jobs, args.work_dir, on_cell=write_outputs)
    write_outputs(final=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
