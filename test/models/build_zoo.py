"""Build the model zoo into its cache: `python test/models/build_zoo.py [-k PATTERN] [--jobs N] [--corpus wild]`.

The cache lives outside the repository, in `$ONNX_TORCH_MLIR_ZOO_CACHE` (default
`~/.cache/onnx-torch-mlir/zoo`; the wild corpus's in `$ONNX_TORCH_MLIR_WILD_CACHE/builds`, default
`~/.cache/onnx-torch-mlir/wild/builds`; corpus.py). Each model gets a directory `<name>-<key>`, where the key hashes
what decides the files: the builder's and the inputs' code, the parameters, and the versions of the
packages that export and run it. A model is rebuilt only when its key changed.

A directory holds the exported model, `reference.npz` (the seeded inputs `input.<name>` in graph
input order and onnxruntime's outputs `output.<index>`, CPU execution provider), and `build.json`:
the outcome, the path of the `.onnx` file and its sha256, on failure the stage ("export", "inputs",
"onnxruntime") with the first line of the error, and `reference` when onnxruntime ran an in-memory
copy with int8 weights as uint8 because its uint8 x int8 kernels saturate on this CPU
(onnx_torch_mlir/tools/unsaturated_reference.py). A failed build is cached like a successful one
(the same code and versions fail the same way); `--rebuild` forces a new attempt.

Each model is built in its own process (an exporter that crashes or hangs costs one model).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import importlib.metadata
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import zoo_models  # noqa: E402
from corpus import CORPORA, ZOO, Corpus  # noqa: E402

from onnx_torch_mlir.tools import unsaturated_reference  # noqa: E402

CACHE_VARIABLE = ZOO.cache_variable
VERSIONED_PACKAGES = (
    "torch", "transformers", "optimum", "optimum-onnx", "onnx", "onnxscript", "onnx-ir", "onnxruntime", "numpy",
)
# The newest IR version the pinned onnxruntime (1.31) loads; a model labelled newer is relabelled for
# it (newer IR versions add nothing these models use), as `onnx-torch-mlir verify` does.
ONNXRUNTIME_MAX_IR_VERSION = 13
BUILD_TIMEOUT_SECONDS = 900
SEED = 0


def cache_root(corpus: Corpus = ZOO) -> Path:
    return corpus.cache_root


def package_versions() -> dict[str, str]:
    versions = {}
    for package in VERSIONED_PACKAGES:
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = "absent"
    return versions


def cache_key(model: zoo_models.ZooModel) -> str:
    harness = "".join(inspect.getsource(code) for code in (build_in_this_process, _check_declared_dims, _onnxruntime_outputs,
                                                           unsaturated_reference))
    text = model.fingerprint_source() + harness + json.dumps(package_versions(), sort_keys=True) + f"seed={SEED}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def cache_directory(model: zoo_models.ZooModel, corpus: Corpus = ZOO) -> Path:
    return cache_root(corpus) / f"{model.name}-{cache_key(model)}"


@dataclass
class BuildResult:
    name: str
    ok: bool
    directory: Path | None = None
    model_path: Path | None = None  # the .onnx file
    stage: str = ""  # where a failed build stopped: export, inputs, onnxruntime, crash, timeout
    error: str = ""  # its first error line
    seconds: float = 0.0
    cached: bool = False

    @property
    def reference_path(self) -> Path | None:
        return self.directory / "reference.npz" if self.directory else None


_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
# Exceptions whose own first line is a generic banner; the cause they wrap says what went wrong.
_WRAPPERS = {"TorchExportError", "ConversionError", "OnnxExporterError"}


def first_error_line(error: BaseException) -> str:
    """`Type: first line of the message`, the line a report shows for an exception.

    For the dynamo exporter's wrapper errors ("Failed to export the model with torch.export ...")
    the wrapped cause's line is added, since the banner alone names no reason.
    """

    def line_of(exception: BaseException) -> str:
        lines = [line.strip() for line in _ANSI_ESCAPE.sub("", str(exception)).splitlines() if line.strip()]
        if len(lines) > 1 and lines[0].endswith(":"):  # "Unable to parse module assembly:" and the like
            lines[0] = f"{lines[0]} {lines[1]}"
        return f"{type(exception).__name__}: {lines[0] if lines else '(no message)'}"

    text = line_of(error)
    cause = error.__cause__
    if type(error).__name__ in _WRAPPERS and cause is not None:
        while type(cause).__name__ in _WRAPPERS and cause.__cause__ is not None:
            cause = cause.__cause__
        text = f"{type(error).__name__}: {line_of(cause)}"
    return text[:400]


def _read_build_record(directory: Path, name: str, cached: bool) -> BuildResult | None:
    try:
        record = json.loads((directory / "build.json").read_text())
    except (OSError, ValueError):
        return None
    return BuildResult(
        name=name, ok=record["ok"], directory=directory,
        model_path=directory / record["model"] if record.get("model") else None,
        stage=record.get("stage", ""), error=record.get("error", ""), seconds=record.get("seconds", 0.0),
        cached=cached,
    )


def graph_input_names(model) -> list[str]:
    initializers = {initializer.name for initializer in model.graph.initializer}
    return [value.name for value in model.graph.input if value.name not in initializers]


def _onnxruntime_outputs(model_path: Path, ordered_inputs: list) -> tuple[list, dict | None]:
    """onnxruntime's outputs, and how the reference was computed when not from the file as it is
    (None): on a CPU where its uint8 x int8 kernels saturate, a model with int8 weights is run as an
    in-memory copy with those weights as uint8, the same real values (unsaturated_reference.py)."""
    import onnx
    import onnxruntime

    header = onnx.load(str(model_path), load_external_data=False)
    saturation = unsaturated_reference.uint8_int8_saturation()
    how = None
    if header.ir_version <= ONNXRUNTIME_MAX_IR_VERSION and not (saturation and unsaturated_reference.needs_rewrite(header)):
        source = str(model_path)
    else:
        full = onnx.load(str(model_path))
        full.ir_version = min(full.ir_version, ONNXRUNTIME_MAX_IR_VERSION)
        if saturation and unsaturated_reference.needs_rewrite(full):
            copy, rewrite = unsaturated_reference.int8_weights_as_uint8(full)
            if rewrite.nodes or rewrite.left:
                how = {"uint8 x int8 saturation": saturation, **rewrite.record()}
            if rewrite.nodes:
                full = copy
        source = full.SerializeToString()
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    names = [value.name for value in session.get_inputs()]
    return session.run(None, dict(zip(names, ordered_inputs))), how


def _check_declared_dims(model, names: list[str], inputs: list) -> None:
    """Refuse inputs that contradict a static dim of the model (say, an exporter fixed a dim that was
    asked to be dynamic): the run would otherwise fail in onnxruntime with a less telling message."""
    declared = {value.name: value.type.tensor_type.shape for value in model.graph.input}
    for name, value in zip(names, inputs):
        shape = declared.get(name)
        if shape is None:
            continue
        for axis, dim in enumerate(shape.dim):
            # A dim_value <= 0 is a dynamic dim as some exporters write it (paddle2onnx's -1).
            if dim.HasField("dim_value") and dim.dim_value > 0 and axis < value.ndim and dim.dim_value != value.shape[axis]:
                fixed = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in shape.dim]
                raise ValueError(
                    f"the exported model fixes input {name} to shape {fixed}, the zoo runs it at {list(value.shape)} "
                    f"(dim {axis} was exported static)"
                )


def build_in_this_process(model: zoo_models.ZooModel, directory: Path) -> dict:
    """Export `model` into `directory` and compute its reference outputs; the build record."""
    import numpy as np
    import onnx

    started = time.perf_counter()
    record = {"ok": False, "name": model.name, "versions": package_versions()}

    def fail(stage: str, error: BaseException) -> dict:
        line = first_error_line(error).replace(str(directory) + "/", "")  # no machine-specific paths
        record.update(stage=stage, error=line, seconds=round(time.perf_counter() - started, 2))
        return record

    try:
        model_path = Path(model.build(directory))
    except Exception as error:  # the exporter's own errors: that is this model's build outcome
        return fail("export", error)
    record["model"] = str(model_path.relative_to(directory))
    record["sha256"] = hashlib.sha256(model_path.read_bytes()).hexdigest()
    try:
        header = onnx.load(str(model_path), load_external_data=False)
        expected_names = graph_input_names(header)
        inputs = model.inputs(SEED)
        if sorted(inputs) != sorted(expected_names):
            raise ValueError(f"the zoo gives inputs {sorted(inputs)}, the model takes {expected_names}")
        ordered = [inputs[name] for name in expected_names]
        _check_declared_dims(header, expected_names, ordered)
        record["opset"] = next((o.version for o in header.opset_import if o.domain in ("", "ai.onnx")), None)
        record["ir_version"] = header.ir_version
        record["inputs"] = {name: [list(value.shape), str(value.dtype)] for name, value in zip(expected_names, ordered)}
    except Exception as error:
        return fail("inputs", error)
    try:
        outputs, how = _onnxruntime_outputs(model_path, ordered)
    except Exception as error:
        return fail("onnxruntime", error)
    if how:
        record["reference"] = how
    arrays = {f"input.{index}": value for index, value in enumerate(ordered)}
    arrays.update({f"output.{index}": np.asarray(value) for index, value in enumerate(outputs)})
    np.savez(directory / "reference.npz", **arrays)
    size = sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())
    record.update(ok=True, seconds=round(time.perf_counter() - started, 2), megabytes=round(size / 2**20, 1))
    return record


def ensure_built(model: zoo_models.ZooModel, rebuild: bool = False, timeout: float = BUILD_TIMEOUT_SECONDS,
                 corpus: Corpus = ZOO) -> BuildResult:
    """The cached build of `model`, building it (in a child process) when missing or stale."""
    directory = cache_directory(model, corpus)
    if not rebuild:
        cached = _read_build_record(directory, model.name, cached=True)
        if cached is not None:
            return cached
    root = cache_root(corpus)
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{model.name}-", dir=root))
    started = time.perf_counter()
    command = [sys.executable, str(Path(__file__).resolve()), "--build-one", model.name, "--into", str(work),
               "--corpus", corpus.name]
    log_path = work.parent / f"{work.name}.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
    elapsed = round(time.perf_counter() - started, 2)
    result = _read_build_record(work, model.name, cached=False)
    if result is None:  # the builder died without a record: a crash or a timeout
        stage = "timeout" if elapsed >= timeout else "crash"
        tail = [line for line in log_path.read_text(errors="replace").splitlines() if line.strip()][-1:]
        error = f"no build within {timeout:.0f} s" if stage == "timeout" else f"builder exited with {process.returncode}"
        result = BuildResult(model.name, False, None, None, stage, error + (f" ({tail[0].strip()[:200]})" if tail else ""), elapsed)
        shutil.rmtree(work, ignore_errors=True)
        log_path.unlink(missing_ok=True)
        return result  # not cached: a crash or a timeout may not repeat
    if directory.exists():
        shutil.rmtree(directory)
    work.rename(directory)
    log_path.unlink(missing_ok=True)
    return _read_build_record(directory, model.name, cached=False)


def select(patterns: list[str] | None, slice_only: bool = False, corpus: Corpus = ZOO) -> list[zoo_models.ZooModel]:
    """The corpus's models whose name matches any of `patterns` (fnmatch, or a plain substring)."""
    chosen = []
    for model in corpus.models:
        if slice_only and not model.slice:
            continue
        if patterns and not any(fnmatch.fnmatch(model.name, p) or p in model.name for p in patterns):
            continue
        chosen.append(model)
    return chosen


def build_all(models, jobs: int = 2, rebuild: bool = False, on_result=None, corpus: Corpus = ZOO) -> dict[str, BuildResult]:
    results = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for result in pool.map(lambda model: ensure_built(model, rebuild, corpus=corpus), models):
            results[result.name] = result
            if on_result:
                on_result(result)
    return results


def describe(result: BuildResult) -> str:
    if result.ok:
        return f"{result.name}: ok ({'cached' if result.cached else f'{result.seconds:.1f} s'})"
    return f"{result.name}: BUILD FAILED at {result.stage}: {result.error}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", action="append", dest="patterns", metavar="PATTERN", help="only models matching (repeatable)")
    parser.add_argument("--slice", action="store_true", help="only the fast slice make test runs")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rebuild", action="store_true", help="build even when the cache has the model")
    parser.add_argument("--list", action="store_true", help="list the models and their cache directories")
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="zoo", help="the zoo (default) or the wild corpus")
    parser.add_argument("--build-one", help=argparse.SUPPRESS)
    parser.add_argument("--into", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    corpus = CORPORA[args.corpus]
    if args.build_one:
        directory = Path(args.into)
        record = build_in_this_process(corpus.by_name[args.build_one], directory)
        (directory / "build.json").write_text(json.dumps(record, indent=1) + "\n")
        return 0
    models = select(args.patterns, args.slice, corpus)
    if args.list:
        for model in models:
            print(f"{model.name:40} {model.exporter:12} {'dynamic' if model.dynamic else 'static':8} "
                  f"{'slice' if model.slice else '':6} {cache_directory(model, corpus)}")
        return 0
    print(f"building {len(models)} models into {cache_root(corpus)}", flush=True)
    results = build_all(models, args.jobs, args.rebuild, on_result=lambda r: print(describe(r), flush=True), corpus=corpus)
    failed = [r for r in results.values() if not r.ok]
    print(f"{len(results) - len(failed)} built, {len(failed)} failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
