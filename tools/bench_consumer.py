"""Downstream benchmark: how fast IREE runs what each path hands it, next to onnxruntime.

    .venv/bin/python tools/bench_consumer.py [-k NAME ...] [--calls N] [--paths P,P] [--update]

For each model, in one process: onnxruntime (CPU execution provider, `--ort-threads` threads, 1 by
default: IREE's `local-sync` driver, the one runtime/iree.py runs on, uses one thread) computes the
reference outputs; then each path compiles the ONNX file to an IREE VM module with the same
iree-compile flags, those `run --consumer iree` uses (runtime/iree.py's: llvm-cpu for the host CPU,
IREE's default optimization levels, and RECOMMENDED_FLAGS, data tiling; a path IREE fails to compile
with those is compiled with IREE's defaults and its cell says so; `--iree-defaults`: IREE's defaults
for every path):

- ours-linalg, ours-tosa, ours-stablehlo: `onnx_torch_mlir.compile(model, output_type=BACKEND)`;
- iree-import-onnx: IREE's own importer (the `iree-import-onnx` tool, weights inline) and IREE's ONNX
  input conversion (`--iree-input-type=onnx`);
- torch-mlir: torch-mlir's importer and `torch-onnx-to-torch-backend-pipeline`, then the same Linalg
  backend pipeline as ours-linalg.
- ours-linalg-as-imported, ours-stablehlo-as-imported (only with `--paths`): ours with
  `conv_layout="as-imported"`, torch-mlir's NCHW convolutions and pools, to measure the channels-last steps.
- ours-linalg-direct-convs (only with `--paths`): ours with `conv_form="direct"`, the convolution ops
  themselves instead of image patches times the filter matrix, to measure that step.
- ours-<backend>+<option set> (only with `--paths`, e.g. ours-linalg+ukernels): ours compiled with an
  IREE option set of IREE_OPTION_SETS added (data tiling off or on, ukernels, O3, IREE's own im2col), to measure which
  iree-compile options a user should pass. (IREE's experimental data tiling of convolutions,
  `--iree-dispatch-creation-experimental-set-data-tiling-ops`, is unknown to the compiler's
  in-process flag parser of the pinned IREE: "option not found".)

Each program runs once on the model's seeded inputs and its outputs are compared with onnxruntime's
at the model's tolerance (the conformance suite's `mismatch`); a path that fails to compile or run is
a cell with its first error line, and one whose numbers differ is timed but marked. Then the calls
alternate: one call of each path and of onnxruntime in turn (each round in a seeded random order, so
that no path always runs first or always after the same one), one warm-up round, then up to `--calls` rounds or until
`--seconds` per model have passed (at least 2 rounds). Cells are the medians of
those calls; ratios are a path's median over onnxruntime's and over iree-import-onnx's, so a
machine that is slower during the run slows every column alike.

`--update` writes the table into its marked section of docs/performance.md (below tools/bench.py's
notes marker, which keeps it) and every call's time into docs/performance-consumer.tsv.
`make bench-consumer` runs it on every model below.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPOSITORY = Path(__file__).resolve().parent.parent
DOCUMENT = REPOSITORY / "docs" / "performance.md"
TSV = REPOSITORY / "docs" / "performance-consumer.tsv"
BEGIN = "<!-- bench-consumer: begin (tools/bench_consumer.py --update writes this section) -->"
END = "<!-- bench-consumer: end -->"
ONNXRUNTIME = "onnxruntime"
IREE_IMPORTER = "iree-import-onnx"
ERROR_LIMIT = 160
# iree-compile flags every path gets after runtime/iree.py's (--iree-flag adds to it).
IREE_FLAGS: list[str] = []
# Whether every path is compiled as `run --consumer iree` compiles: runtime/iree.py's RECOMMENDED_FLAGS
# before IREE_FLAGS, and IREE_FLAGS alone where IREE fails with them (--iree-defaults: never).
USE_RECOMMENDED_FLAGS = [True]


# --------------------------------------------------------------------------------------------------
# Models


@dataclasses.dataclass(frozen=True)
class BenchModel:
    """A model the benchmark runs: where its ONNX file and seeded inputs come from, and its tolerance."""

    name: str
    kind: str  # cnn, transformer
    source: str  # a zoo model's name, or "bench-runner:NAME", or "build:NAME" (built by this tool)
    rtol: float = 1e-3
    atol: float = 1e-4


# The zoo's CNNs and transformers. The small zoo configs (hidden 32-64, 2 layers) stand in where the
# zoo has no full-size export; ResNet-50 is tools/bench_runner.py's full-size export, MobileNetV3-Small
# the float export of the zoo's quantized MobileNetV3 (zoo_deployment.py), built here.
MODELS = [
    BenchModel("resnet50-torchscript", "cnn", "bench-runner:resnet50-torchscript"),
    BenchModel("mobilenetv3-small-torchscript", "cnn", "build:mobilenetv3-small-torchscript", atol=5e-4),
    BenchModel("efficientnet-torchscript-static", "cnn", "efficientnet-torchscript-static"),
    BenchModel("convnext-torchscript-static", "cnn", "convnext-torchscript-static"),
    BenchModel("unet-dynamo-static", "cnn", "unet-dynamo-static"),
    BenchModel("bert-base-torchscript-static", "transformer", "bert-base-torchscript-static"),
    BenchModel("gpt2-base-dynamo-static", "transformer", "gpt2-base-dynamo-static"),
    BenchModel("vit-base-dynamo-static", "transformer", "vit-base-dynamo-static"),
    BenchModel("whisper-torchscript-static", "transformer", "whisper-torchscript-static"),
    BenchModel("llama-torchscript-static", "transformer", "llama-torchscript-static"),
]


@dataclasses.dataclass
class LoadedModel:
    name: str
    path: Path
    inputs: list  # numpy arrays in graph input order
    rtol: float
    atol: float


def _zoo():
    sys.path.insert(0, str(REPOSITORY / "test" / "models"))
    import build_zoo  # noqa: PLC0415 - the zoo's own code finds (or builds) the cached model

    return build_zoo


def load_model(model: BenchModel) -> LoadedModel:
    """The model's ONNX file (built into the cache if missing, in a child process) and seeded inputs."""
    kind, _, name = model.source.rpartition(":")
    if kind == "bench-runner":
        sys.path.insert(0, str(REPOSITORY / "tools"))
        import bench_runner  # noqa: PLC0415

        path = bench_runner.built(name)
        inputs = [np.random.default_rng(0).standard_normal((1, 3, 224, 224), dtype=np.float32)]
    elif kind == "build":
        path = _built_here(name)
        inputs = [np.random.default_rng(0).standard_normal((1, 3, 224, 224), dtype=np.float32)]
    elif kind == "file":
        path, inputs = Path(name), seeded_inputs(Path(name))
    else:
        build_zoo = _zoo()
        zoo_model = build_zoo.zoo_models.BY_NAME[name]
        result = build_zoo.ensure_built(zoo_model)
        if not result.ok:
            raise RuntimeError(f"the zoo build failed ({result.stage}: {result.error})")
        path = result.model_path
        reference = np.load(result.reference_path)
        inputs = [reference[f"input.{index}"] for index in range(sum(key.startswith("input.") for key in reference.files))]
    return LoadedModel(model.name, Path(path), inputs, model.rtol, model.atol)


def seeded_inputs(path: Path) -> list:
    """Seeded inputs for a model file with static input shapes: floats from a normal distribution,
    integers zero (indices, ids and lengths are always valid at zero)."""
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    initializers = {initializer.name for initializer in graph.initializer}
    rng, inputs = np.random.default_rng(0), []
    for value in graph.input:
        if value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
        shape = [dim.dim_value for dim in tensor_type.shape.dim]
        if any(size <= 0 for size in shape):
            raise ValueError(f"input {value.name} has a dynamic dim; --model-file takes static shapes")
        inputs.append(rng.standard_normal(shape).astype(dtype) if dtype.kind == "f" else np.zeros(shape, dtype))
    return inputs


def _cache_directory() -> Path:
    return Path(os.environ.get("ONNX_TORCH_MLIR_CACHE", Path.home() / ".cache" / "onnx-torch-mlir")) / "bench"


def _built_here(name: str) -> Path:
    """A model this tool exports, built once into the cache by a child process (torch stays out of
    the measuring process: its thread pools and memory would be part of every measurement)."""
    path = _cache_directory() / name / "model.onnx"
    if not path.exists():
        result = subprocess.run([sys.executable, __file__, "--build", name], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"building {name} failed: {result.stderr.strip()[-300:]}")
    return path


def build(name: str) -> Path:
    """Export `name` into the cache (the child process of _built_here)."""
    assert name == "mobilenetv3-small-torchscript", name
    _zoo()
    import zoo_deployment  # noqa: PLC0415

    path = _cache_directory() / name / "model.onnx"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name("partial.onnx")
    zoo_deployment._zoo_models()._quiet()
    zoo_deployment._export_static_image_model(zoo_deployment._mobilenet_v3_small(), "pixel_values", 224, ["logits"], partial)
    partial.rename(path)
    return path


# --------------------------------------------------------------------------------------------------
# Paths: ONNX file -> a callable IREE program


# A path: (model, expected outputs, a work directory) -> a function of the IREE flags that compiles it.


def _ours(backend: str, option_set: tuple = (), **options) -> Callable:
    def prepare(model: LoadedModel, expected: list, workdir: Path):
        import onnx_torch_mlir
        from onnx_torch_mlir.runtime.iree import compile_with_iree

        module = onnx_torch_mlir.compile(str(model.path), output_type=backend, **options)
        return lambda flags: compile_with_iree(module, backend, extra_flags=[*flags, *option_set])

    return prepare


def _torch_mlir(model: LoadedModel, expected: list, workdir: Path):
    import onnx_torch_mlir
    from onnx_torch_mlir.runtime.iree import compile_with_iree

    module = onnx_torch_mlir.compile(
        str(model.path), output_type="linalg-on-tensors", importer="torch-mlir", converter="torch-mlir"
    )
    return lambda flags: compile_with_iree(module, "linalg-on-tensors", extra_flags=flags)


def _iree_importer(model: LoadedModel, expected: list, workdir: Path):
    from onnx_torch_mlir.runtime.iree import IreeError, compile_file_with_iree

    tool = Path(sys.executable).parent / "iree-import-onnx"
    output = workdir / "iree-import-onnx.mlir"
    result = subprocess.run([str(tool), str(model.path), "-o", str(output)], capture_output=True, text=True)
    if result.returncode != 0:
        lines = [line.strip() for line in (result.stderr + result.stdout).splitlines() if line.strip()]
        raise IreeError(f"iree-import-onnx exited with {result.returncode}: {lines[-1] if lines else ''}")
    with open(output, "rb") as stream:
        head = stream.read(1 << 16).decode(errors="replace")
    entry = re.search(r"func\.func @([\w$.-]+)\(", head)
    if entry is None:
        raise IreeError("iree-import-onnx wrote no func.func in its first 64 KiB")
    return lambda flags: compile_file_with_iree(output, "onnx", entry.group(1), model.inputs, expected, flags)


def compile_path(name: str, model: LoadedModel, expected: list, workdir: Path):
    """The path's IREE program, and why IREE failed with the recommended flags if it fell back."""
    from onnx_torch_mlir.runtime.iree import compile_with_recommended_flags

    compile_with_flags = PATHS[name](model, expected, workdir)
    if not USE_RECOMMENDED_FLAGS[0]:
        return compile_with_flags(IREE_FLAGS), None
    return compile_with_recommended_flags(compile_with_flags, IREE_FLAGS)


PATHS: dict[str, Callable] = {
    "ours-linalg": _ours("linalg-on-tensors"),
    "ours-tosa": _ours("tosa"),
    "ours-stablehlo": _ours("stablehlo"),
    IREE_IMPORTER: _iree_importer,
    "torch-mlir": _torch_mlir,
    # Before the channels-last steps (pipelines.ROUTE_OPTIONS conv_layout): only when --paths names them.
    "ours-linalg-as-imported": _ours("linalg-on-tensors", conv_layout="as-imported"),
    "ours-stablehlo-as-imported": _ours("stablehlo", conv_layout="as-imported"),
    # Before the step writing convolutions as matrix products (ROUTE_OPTIONS conv_form).
    "ours-linalg-direct-convs": _ours("linalg-on-tensors", conv_form="direct"),
}
# IREE option sets a user may pass, measured as paths of their own (only when --paths names them):
# ours-<backend>+<set>, the same module compiled with these iree-compile flags added.
IREE_OPTION_SETS = {
    "no-data-tiling": ("--iree-opt-data-tiling=false",),
    "data-tiling": ("--iree-opt-data-tiling=true",),
    "ukernels": ("--iree-llvmcpu-enable-ukernels=all",),
    "O3": ("--iree-opt-level=O3",),
    "im2col": ("--iree-global-opt-use-im2col-for-convs",),
    "data-tiling-ukernels": ("--iree-opt-data-tiling=true", "--iree-llvmcpu-enable-ukernels=all"),
}
for _backend, _short in (("linalg-on-tensors", "linalg"), ("tosa", "tosa"), ("stablehlo", "stablehlo")):
    for _name, _flags in IREE_OPTION_SETS.items():
        PATHS[f"ours-{_short}+{_name}"] = _ours(_backend, _flags)
OPT_IN_PATHS = {"ours-linalg-as-imported", "ours-stablehlo-as-imported", "ours-linalg-direct-convs",
                *(name for name in PATHS if "+" in name)}


# The package's path switch (config.py; DISABLE= for make) each path needs.
SWITCHES = {"ours-tosa": "tosa", "ours-stablehlo": "stablehlo", "torch-mlir": "torch",
            "ours-stablehlo-as-imported": "stablehlo",
            **{name: "tosa" if name.startswith("ours-tosa+") else "stablehlo"
               for name in PATHS if name.startswith(("ours-tosa+", "ours-stablehlo+"))}}


def switched_on_paths() -> list[str]:
    from onnx_torch_mlir import config

    return [name for name in PATHS
            if name not in OPT_IN_PATHS and (name not in SWITCHES or config.is_enabled(SWITCHES[name]))]


# --------------------------------------------------------------------------------------------------
# Measuring


@dataclasses.dataclass
class PathResult:
    path: str
    status: str = "ok"  # ok, wrong numbers, compile error, run error
    detail: str = ""  # the error's first line, or what differs
    compile_seconds: float | None = None
    call_seconds: list = dataclasses.field(default_factory=list)

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.call_seconds) * 1e3 if self.call_seconds else None


@dataclasses.dataclass
class ModelResult:
    name: str
    paths: dict  # path name -> PathResult, onnxruntime included
    rounds: int = 0
    error: str = ""  # the model could not be loaded or onnxruntime failed
    measured: str = ""  # UTC date and time the model's measurement started
    load: str = ""  # the machine's 1-minute load average then
    setup: str = ""  # what else decides the numbers: onnxruntime's threads, the extra IREE flags


def first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = f"{type(error).__name__}: {lines[0] if lines else '(no message)'}"
    return text if len(text) <= ERROR_LIMIT else text[: ERROR_LIMIT - 3] + "..."


def onnxruntime_session(path: Path, threads: int):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    names = [value.name for value in session.get_inputs()]
    return lambda *inputs: session.run(None, dict(zip(names, inputs)))


def setup(threads: int) -> str:
    from onnx_torch_mlir.runtime.iree import RECOMMENDED_FLAGS

    flags = [*(RECOMMENDED_FLAGS if USE_RECOMMENDED_FLAGS[0] else ()), *IREE_FLAGS]
    return f"ort-threads={threads} iree-flags={' '.join(flags) or '-'}"


def measure(model: BenchModel, paths: list[str], calls: int, seconds: float, threads: int, log) -> ModelResult:
    import onnx

    from onnx_torch_mlir.conformance.compare import mismatch
    from onnx_torch_mlir.runtime.backend import declared_output_dtypes

    result = ModelResult(model.name, {}, measured=time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                         load=f"{os.getloadavg()[0]:.1f}", setup=setup(threads))
    log(f"{model.name}: loading (building it first if it is not cached) and running onnxruntime")
    try:
        loaded = load_model(model)
        reference = onnxruntime_session(loaded.path, threads)
        expected = [np.asarray(value) for value in reference(*loaded.inputs)]
        result_dtypes = declared_output_dtypes(onnx.load(str(loaded.path), load_external_data=False))
    except Exception as error:  # a model that cannot be had is a row with its reason
        result.error = first_line(error)
        log(f"{model.name}: {result.error}")
        return result
    programs = {ONNXRUNTIME: reference}
    result.paths[ONNXRUNTIME] = PathResult(ONNXRUNTIME)
    with tempfile.TemporaryDirectory(prefix="bench-consumer-") as workdir:
        for name in paths:
            cell = result.paths[name] = PathResult(name)
            log(f"{model.name} {name}: compiling")
            started = time.perf_counter()
            try:
                program, fallback = compile_path(name, loaded, expected, Path(workdir))
            except Exception as error:  # a path that fails is a cell, not a crash
                cell.status, cell.detail = "compile error", first_line(error)
                log(f"{model.name} {name}: {cell.detail}")
                continue
            finally:
                cell.compile_seconds = time.perf_counter() - started
                gc.collect()
            call = _with_result_dtypes(program, result_dtypes)
            try:
                reason = mismatch(expected, call(*loaded.inputs), loaded.rtol, loaded.atol)
            except Exception as error:
                cell.status, cell.detail = "run error", first_line(error)
                log(f"{model.name} {name}: {cell.detail}")
                continue
            if reason:
                cell.status, cell.detail = "wrong numbers", reason[:ERROR_LIMIT]
            elif fallback:
                cell.status, cell.detail = "IREE's defaults", f"with the recommended flags: {fallback}"[:ERROR_LIMIT]
            programs[name] = call
            log(f"{model.name} {name}: compiled in {cell.compile_seconds:.1f} s, {cell.status}"
                + (f" ({cell.detail})" if cell.detail else ""))
    _alternate(loaded.inputs, programs, result, calls, seconds, log)
    return result


def _with_result_dtypes(program, result_dtypes) -> Callable:
    return lambda *inputs: program(*inputs, result_dtypes=result_dtypes)


def _alternate(inputs: list, programs: dict, result: ModelResult, calls: int, seconds: float, log) -> None:
    """One warm-up round, then rounds of one call per program until `calls` rounds or `seconds`, each
    round in a seeded random order: a program runs slower right after another has filled the caches
    (the first IREE call of a round ran 5-15% slower than the same module later in it, and a program
    measured always right after onnxruntime ran EfficientNet 1.3 times slower than the same module
    after another IREE program), so no program may always follow the same one."""
    for program in programs.values():
        program(*inputs)
    order = list(programs.items())
    shuffler = random.Random(0)
    started = time.perf_counter()
    while result.rounds < calls and (result.rounds < 2 or time.perf_counter() - started < seconds):
        shuffler.shuffle(order)
        for name, program in order:
            begin = time.perf_counter()
            program(*inputs)
            result.paths[name].call_seconds.append(time.perf_counter() - begin)
        result.rounds += 1
    medians = ", ".join(f"{name} {result.paths[name].median_ms:.2f} ms" for name in programs)
    log(f"{result.name}: {result.rounds} rounds in {time.perf_counter() - started:.1f} s: {medians}")


# --------------------------------------------------------------------------------------------------
# Reporting


def _ratio(numerator: float | None, denominator: float | None) -> str:
    return f"{numerator / denominator:.2f}" if numerator and denominator else "-"


def cell_text(cell: PathResult | None, ort_ms: float | None, importer_ms: float | None) -> str:
    if cell is None:
        return "not run"
    if cell.median_ms is None:
        return f"{cell.status}: {cell.detail.replace('|', '/')}"
    text = f"{cell.median_ms:.2f} ms"
    if cell.path != ONNXRUNTIME:
        text += f", {_ratio(cell.median_ms, ort_ms)}"
        if cell.path != IREE_IMPORTER:
            text += f" / {_ratio(cell.median_ms, importer_ms)}"
    if cell.status != "ok":
        text += f" ({cell.status}: {cell.detail.replace('|', '/')})"
    return text


def table(results: list[ModelResult], paths: list[str]) -> str:
    columns = [ONNXRUNTIME, *paths]
    lines = ["| model | measured, load | rounds | " + " | ".join(columns) + " |", "|---|---|---|" + "---|" * len(columns)]
    for result in results:
        if result.error:
            lines.append(f"| {result.name} | {result.measured}, {result.load} | - | "
                         + " | ".join([result.error.replace("|", "/")] + [""] * len(paths)) + " |")
            continue
        ort = result.paths[ONNXRUNTIME].median_ms
        importer = result.paths[IREE_IMPORTER].median_ms if IREE_IMPORTER in result.paths else None
        cells = [cell_text(result.paths.get(name), ort, importer) for name in columns]
        lines.append(f"| {result.name} | {result.measured}, {result.load} | {result.rounds} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def compile_table(results: list[ModelResult], paths: list[str]) -> str:
    lines = ["| model | " + " | ".join(paths) + " |", "|---|" + "---|" * len(paths)]
    for result in results:
        if result.error:
            continue
        cells = []
        for name in paths:
            cell = result.paths.get(name)
            cells.append(f"{cell.compile_seconds:.1f} s" if cell and cell.compile_seconds is not None else "-")
        lines.append(f"| {result.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


TSV_COLUMNS = ("model", "path", "status", "detail", "compile_seconds", "median_ms", "call_ms", "measured", "load", "setup")


def tsv(results: list[ModelResult]) -> str:
    rows = ["\t".join(TSV_COLUMNS)]
    for result in results:
        when = f"{result.measured}\t{result.load}\t{result.setup}"
        if result.error:
            rows.append(f"{result.name}\t-\tmodel error\t{result.error}\t\t\t\t{when}")
        for cell in result.paths.values():
            compile_seconds = f"{cell.compile_seconds:.2f}" if cell.compile_seconds is not None else ""
            median = f"{cell.median_ms:.3f}" if cell.median_ms is not None else ""
            calls = ",".join(f"{seconds * 1e3:.3f}" for seconds in cell.call_seconds)
            rows.append(f"{result.name}\t{cell.path}\t{cell.status}\t{cell.detail}\t{compile_seconds}\t{median}\t{calls}\t{when}")
    return "\n".join(rows) + "\n"


def read_tsv(path: Path) -> list[ModelResult]:
    """The results a TSV written by `tsv` holds (an earlier run's, to keep the models this run leaves out)."""
    results: dict[str, ModelResult] = {}
    lines = path.read_text().splitlines() if path.exists() else []
    for line in lines[1:]:
        row = dict(zip(TSV_COLUMNS, line.split("\t")))
        result = results.setdefault(row["model"], ModelResult(
            row["model"], {}, measured=row.get("measured", ""), load=row.get("load", ""), setup=row.get("setup", "")))
        if row["status"] == "model error":
            result.error = row["detail"]
            continue
        cell = result.paths[row["path"]] = PathResult(row["path"], row["status"], row["detail"])
        cell.compile_seconds = float(row["compile_seconds"]) if row["compile_seconds"] else None
        cell.call_seconds = [float(ms) / 1e3 for ms in row["call_ms"].split(",") if ms]
        if row["path"] == ONNXRUNTIME:
            result.rounds = len(cell.call_seconds)
    return list(results.values())


def merged(new: list[ModelResult], earlier: list[ModelResult]) -> list[ModelResult]:
    """This run's results, and the earlier ones of the other models measured the same way, in MODELS order."""
    names = {result.name for result in new}
    kept = [result for result in earlier if result.name not in names and result.setup == (new[0].setup if new else "")]
    order = {model.name: index for index, model in enumerate(MODELS)}
    return sorted(new + kept, key=lambda result: order.get(result.name, len(order)))


def cpu_description() -> str:
    """The CPU's model name and widest x86 vector extension: IREE's code for AVX-512 and for AVX2 differ
    by up to 4x on the same matrix product (docs/consumers-iree.md)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "CPU unknown"
    name = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    flags_line = re.search(r"^flags\s*:\s*(.+)$", text, re.MULTILINE)
    flags = set(flags_line.group(1).split()) if flags_line else set()
    widest = next((ext for ext in ("avx512f", "avx2", "avx") if ext in flags), "no AVX")
    return f"{name.group(1).strip() if name else 'CPU unknown'} ({widest.upper()})"


def section(results: list[ModelResult], paths: list[str], args) -> str:
    from onnx_torch_mlir.runtime.iree import RECOMMENDED_FLAGS

    chosen = [*(RECOMMENDED_FLAGS if USE_RECOMMENDED_FLAGS[0] else ()), *args.iree_flag]
    flags = f"; and {' '.join(f'`{flag}`' for flag in chosen)}" if chosen else ""
    return f"""{BEGIN}
## Downstream: IREE running each path's output, against onnxruntime

Written by `make bench-consumer` (`tools/bench_consumer.py --update`; every call's time in
`docs/performance-consumer.tsv`). One process per run: each path compiles the ONNX file to an IREE
module with the same flags (llvm-cpu, host CPU, IREE's default optimization levels; runtime/iree.py{flags}),
run on IREE's single-threaded `local-sync` driver; onnxruntime runs on its CPU execution provider
with {args.ort_threads} intra-op thread(s). Every program's outputs are checked against onnxruntime's in
the same run, at the zoo's tolerance for the model. Then one call of each in turn (each round in a seeded random order), a warm-up round,
and up to `--calls` rounds or `--seconds` per model (at least 2; the last run: {args.calls}, {args.seconds:.0f} s): each cell is the median of its
calls, then *its median over onnxruntime's / over iree-import-onnx's* (below 1: faster). Paths:
ours-BACKEND is `onnx_torch_mlir.compile(model, output_type=BACKEND)`; iree-import-onnx is IREE's own
importer and ONNX conversion (`--iree-input-type=onnx`); torch-mlir is torch-mlir's importer and
`torch-onnx-to-torch-backend-pipeline`, then the Linalg backend pipeline. A failed path shows its
first error line.

Machine: {cpu_description()}, 2 cores shared with other jobs; *measured* is when a model's measurement started (UTC) and
the machine's 1-minute load average then. A run updates the rows of the models it measures and keeps
the others' (from the TSV) when they were measured with the same onnxruntime threads and IREE flags.

{table(results, paths)}

IREE compile seconds per path (import and conversion included; one run each, not alternated):

{compile_table(results, paths)}
{END}
"""


def write_section(document: Path, text: str) -> None:
    current = document.read_text() if document.exists() else ""
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        current = head + text.rstrip("\n") + rest.split(END, 1)[1]
    else:
        current = current.rstrip("\n") + "\n\n" + text
    document.write_text(current)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", action="append", default=[], metavar="PATTERN", help="models whose name contains it")
    parser.add_argument("--paths", help=f"comma-separated, of {', '.join(PATHS)} (default: those switched on)")
    parser.add_argument("--calls", type=int, default=30, help="timed rounds per model at most")
    parser.add_argument("--seconds", type=float, default=60.0, help="time box for the timed rounds of one model")
    parser.add_argument("--ort-threads", type=int, default=1)
    parser.add_argument("--iree-flag", action="append", default=[], metavar="FLAG",
                        help="an iree-compile flag for every path, e.g. --iree-flag=--iree-opt-level=O2")
    parser.add_argument("--iree-defaults", action="store_true",
                        help="compile every path with IREE's defaults, not runtime/iree.py's RECOMMENDED_FLAGS")
    parser.add_argument("--update", action="store_true", help="write docs/performance.md's section and the TSV")
    parser.add_argument("--document", type=Path, default=DOCUMENT)
    parser.add_argument("--tsv", type=Path, default=TSV)
    parser.add_argument("--model-file", type=Path, help="benchmark this ONNX file (zero inputs of its static shapes)")
    parser.add_argument("--build", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build:
        print(build(args.build))
        return 0
    IREE_FLAGS[:] = args.iree_flag
    USE_RECOMMENDED_FLAGS[0] = not args.iree_defaults
    paths = [name for name in args.paths.split(",") if name] if args.paths else switched_on_paths()
    unknown = [name for name in paths if name not in PATHS]
    if unknown:
        parser.error(f"unknown path(s) {', '.join(unknown)}; expected {', '.join(PATHS)}")
    models = [model for model in MODELS if not args.k or any(pattern in model.name for pattern in args.k)]
    if args.model_file:
        file = args.model_file.resolve()
        models = [BenchModel(file.parent.name if file.stem == "model" else file.stem, "file", f"file:{file}")]
    if not models:
        parser.error("no model matches")

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)

    started = time.perf_counter()
    results = [measure(model, paths, args.calls, args.seconds, args.ort_threads, log) for model in models]
    log(f"{len(models)} model(s) in {(time.perf_counter() - started) / 60:.1f} min")
    print(table(results, paths))
    if args.update:
        results = merged(results, read_tsv(args.tsv))
        write_section(args.document, section(results, paths, args))
        args.tsv.write_text(tsv(results))
        log(f"wrote {args.document} and {args.tsv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
