"""The model zoo harness: every model x backend x configuration x consumer, against onnxruntime.

It runs the wild corpus (test/wild/, docs/wild.md, `make wild`) the same way with `--corpus wild`.

    python test/models/run_zoo.py                  run everything, print the summary
    python test/models/run_zoo.py --update         ... and rewrite docs/models.md, test/models/results/
                                                   and test/models/passing/ (what `make zoo` does)
    python test/models/run_zoo.py --check          the fast slice, configuration "ours", every consumer:
                                                   fails when a model in a passing list no longer passes
                                                   (what `make test` runs); --all checks every model
    -k PATTERN (repeatable), --backend, --configuration, --consumer, --jobs N, --timeout SECONDS

A cell is one (model, configuration, backend, consumer):
- configuration "ours": `onnx_torch_mlir.compile(path, output_type=backend)`; "ours-dims": the same with
  `dims` and `input_shapes` fixing every dynamic dim at the size it is tested at (`--dim NAME=SIZE`,
  `--input-shape INPUT=D0xD1`; dynamic models, TOSA and StableHLO only); "torch-mlir": the same as "ours" with torch-mlir's importer and conversion (skipped when
  the "torch" path is switched off);
- backend: linalg-on-tensors, tosa, stablehlo (those switched off are not run);
- consumer "reference": `onnx_torch_mlir.runtime.compile_for_cpu(module, input_dialect=backend)`;
  "iree": `onnx_torch_mlir.runtime.iree.compile_with_iree(module, backend)` (reported "unavailable"
  when that module cannot be imported); "xla" (StableHLO), "tosa-reference" (TOSA); "vela" (TOSA, and
  only for statically quantized models, `statically_quantized`): the model compiled again with
  `quantized_io="int8"` and handed to Vela (`onnx_torch_mlir.runtime.vela.compile_with_vela`), which
  passes when every operator is on the NPU; Vela runs nothing, so that cell has no numbers to compare.
The program runs on the model's seeded inputs; its outputs are compared with onnxruntime's (CPU
execution provider, computed when the model is built) at the model's rtol/atol, by the conformance
suite's `mismatch`. Outcomes: pass, wrong numbers, run-time error, compile error (ours or the
consumer's compiler; the stage says which), build error (the export or onnxruntime failed), crash, timeout,
unavailable. The compile and each consumer run in their own child process (zoo_worker.py), so a
crash or a hang costs one cell; the harness measures each child's time and peak RSS.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import build_zoo  # noqa: E402
import zoo_document  # noqa: E402
import zoo_models  # noqa: E402
import zoo_worker  # noqa: E402
import zoo_report  # noqa: E402
from corpus import CORPORA  # noqa: E402
from zoo_report import BACKENDS, CONFIGURATIONS, CONSUMERS, QUANTIZED_CONSUMERS, Cell, consumers_of  # noqa: E402

REPOSITORY = HERE.parent.parent
WORKER = HERE / "zoo_worker.py"
DEFAULT_TIMEOUT_SECONDS = 600.0


# --------------------------------------------------------------------------------------------------
# Child processes


@dataclasses.dataclass
class ChildResult:
    record: dict | None  # what the child wrote; None when it crashed or timed out
    exit_code: int
    timed_out: bool
    seconds: float
    peak_mb: float
    output_tail: list[str]


def run_child(command: list[str], record_path: Path, timeout: float) -> ChildResult:
    """Run `command` in its own process group; its record, exit status, time and peak RSS.

    The child is polled with wait4 (not waited on blindly) so that a timeout kills its whole group
    while the group still exists; wait4's rusage gives its peak RSS, including that of processes it
    ran and waited for (iree-compile).
    """
    import json

    log_path = record_path.with_suffix(".log")
    started = time.perf_counter()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = False
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - started > timeout:
            timed_out = True
            os.killpg(process.pid, signal.SIGKILL)
            _, status, usage = os.wait4(process.pid, 0)
            break
        time.sleep(0.05)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, so Popen must not wait again
    seconds = time.perf_counter() - started
    record = None
    if not timed_out and record_path.exists():
        try:
            record = json.loads(record_path.read_text())
        except ValueError:
            record = None
    lines = [line.strip() for line in log_path.read_text(errors="replace").splitlines() if line.strip()]
    return ChildResult(record, process.returncode, timed_out, seconds, round(usage.ru_maxrss / 1024, 1), lines[-40:])


_DIAGNOSTIC = re.compile(r"error|assert|abort|fault|terminate|exception|fatal", re.IGNORECASE)


def death_message(result: ChildResult, timeout: float) -> tuple[str, str]:
    """(outcome, first error line) for a child that left no record."""
    if result.timed_out:
        return "timeout", f"no result within {timeout:.0f} s"
    if result.exit_code < 0:
        try:
            how = f"killed by {signal.Signals(-result.exit_code).name}"
        except ValueError:
            how = f"killed by signal {-result.exit_code}"
    else:
        how = f"exited with status {result.exit_code} without a result"
    hints = [line for line in result.output_tail if _DIAGNOSTIC.search(line)] or result.output_tail
    return "crash", how + (f": {hints[-1][:300]}" if hints else "")


# --------------------------------------------------------------------------------------------------
# Jobs: one (model, configuration, backend): a compile, then one run per consumer


def module_missing(name: str, missing: str) -> str | None:
    """None when module `name` can be imported, else why not (`missing` when it is not installed)."""
    try:
        if importlib.util.find_spec(name) is None:
            return missing
    except (ImportError, ValueError) as error:
        return f"{name} cannot be found: {error}"
    return None


def iree_available() -> str | None:
    return module_missing("onnx_torch_mlir.runtime.iree", "onnx_torch_mlir.runtime.iree does not exist yet")


def xla_available() -> str | None:
    return module_missing("jax", "jax is not installed (pip install jax==0.10.2 jaxlib==0.10.2)")


def tosa_reference_available() -> str | None:
    """None when tosa-tools' reference model is installed, else why not."""
    try:
        from onnx_torch_mlir.runtime.tosa_reference import tool_path

        tool_path("tosa_reference_model")
    except Exception as error:  # not installed, or the module cannot be imported
        return str(error)
    return None


def vela_available() -> str | None:
    """None when Vela (and tosa-tools' serializer it reads from) is installed, else why not."""
    try:
        from onnx_torch_mlir.runtime.vela import vela_path

        vela_path()
    except Exception as error:  # not installed, or the module cannot be imported
        return str(error)
    return tosa_reference_available()


CONSUMER_AVAILABLE = {"iree": iree_available, "xla": xla_available, "tosa-reference": tosa_reference_available,
                      "vela": vela_available}


@functools.lru_cache(maxsize=None)
def statically_quantized(path: Path) -> bool:
    """Whether the ONNX graph at `path` (or a subgraph of it) has a QuantizeLinear or a QLinear* op (any
    domain): a statically quantized model, which the consumers of integer graphs (Vela) are run on.
    A dynamically quantized one (DynamicQuantizeLinear, MatMulInteger) quantizes at run time: not one."""
    import onnx

    def quantized(graph) -> bool:
        for node in graph.node:
            if node.op_type == "QuantizeLinear" or node.op_type.startswith("QLinear"):
                return True
            if any(quantized(attribute.g) for attribute in node.attribute if attribute.type == onnx.AttributeProto.GRAPH):
                return True
            if any(quantized(g) for attribute in node.attribute for g in attribute.graphs):
                return True
        return False

    return quantized(onnx.load(str(path), load_external_data=False).graph)


def job_consumers(build: build_zoo.BuildResult, backend: str, consumers: list[str]) -> list[str]:
    """The consumers among `consumers` of `backend`'s output for the built model: those of quantized
    models only when the model built and is statically quantized."""
    chosen = consumers_of(backend, consumers)
    if any(consumer in QUANTIZED_CONSUMERS for consumer in chosen) and not (build.ok and statically_quantized(build.model_path)):
        chosen = [consumer for consumer in chosen if consumer not in QUANTIZED_CONSUMERS]
    return chosen


def _selector_arguments(model: zoo_models.ZooModel, configuration: str) -> list[str]:
    """`--selector-input NAME` for each input ours-dims fixes to its test value (ZooModel.selector_inputs)."""
    if configuration != "ours-dims":
        return []
    return [argument for name in model.selector_inputs for argument in ("--selector-input", name)]


def _consumer_module(work: Path, module_path: Path, consumer: str) -> Path:
    """The module a consumer runs: XLA its own form; Arm's reference model the padded-with-counts form
    where the compile child wrote one (zoo_worker.padded_module_path); the others the module."""
    if consumer == "xla":
        return work / "module-xla.mlirbc"
    padded = zoo_worker.padded_module_path(module_path)
    return padded if consumer == "tosa-reference" and padded.exists() else module_path


def run_job(model: zoo_models.ZooModel, build: build_zoo.BuildResult, configuration: str, backend: str,
            consumers: list[str], timeout: float, work_root: Path) -> list[Cell]:
    def cells(outcome: str, stage: str, error: str, **measures) -> list[Cell]:
        return [Cell(model.name, configuration, backend, consumer, outcome, stage, error, **measures) for consumer in consumers]

    if not build.ok:
        return cells("build error", "build", f"{build.stage}: {build.error}")
    work = Path(tempfile.mkdtemp(prefix=f"{model.name}-{configuration}-{backend}-", dir=work_root))
    try:
        module_path = work / "module.mlirbc"
        xla_form = ["--xla-output", str(work / "module-xla.mlirbc")] if "xla" in consumers else []
        compiled = run_child(
            [sys.executable, str(WORKER), "compile", "--model", str(build.model_path), "--configuration", configuration,
             "--backend", backend, "--output", str(module_path), "--record", str(work / "compile.json"),
             "--reference", str(build.reference_path), *xla_form, *_selector_arguments(model, configuration)],
            work / "compile.json", timeout,
        )
        measures = {"compile_seconds": round(compiled.seconds, 2), "compile_peak_mb": compiled.peak_mb}
        if compiled.record is None:
            outcome, error = death_message(compiled, timeout)
            return cells(outcome, "compile", error, **measures)
        if compiled.record.get("compile_seconds") is not None:
            measures["compile_seconds"] = compiled.record["compile_seconds"]
        if compiled.record["outcome"] != "compiled":
            return cells(compiled.record["outcome"], "compile", compiled.record.get("error", ""), **measures)
        results = []
        for consumer in consumers:
            unavailable = CONSUMER_AVAILABLE[consumer]() if consumer in CONSUMER_AVAILABLE else None
            if unavailable:
                results.append(Cell(model.name, configuration, backend, consumer, "unavailable", "consumer", unavailable, **measures))
                continue
            if consumer == "xla" and compiled.record.get("xla_form_error"):
                results.append(Cell(model.name, configuration, backend, consumer, "compile error", "compile",
                                    compiled.record["xla_form_error"], **measures))
                continue
            record_path = work / f"run-{consumer}.json"
            ran = run_child(
                [sys.executable, str(WORKER), "run", "--module",
                 str(_consumer_module(work, module_path, consumer)), "--model", str(build.model_path),
                 "--backend", backend, "--consumer", consumer, "--reference", str(build.reference_path),
                 "--rtol", repr(model.rtol), "--atol", repr(model.atol), "--record", str(record_path),
                 "--configuration", configuration, *_selector_arguments(model, configuration)],
                record_path, timeout,
            )
            run_measures = {**measures, "run_peak_mb": ran.peak_mb}
            if ran.record is None:
                outcome, error = death_message(ran, timeout)
                stage_path = Path(str(record_path) + ".stage")
                stage = stage_path.read_text().strip() if stage_path.exists() else "consumer compile"
                results.append(Cell(model.name, configuration, backend, consumer, outcome, stage, error, **run_measures))
                continue
            record = ran.record
            results.append(Cell(
                model.name, configuration, backend, consumer, record["outcome"], record.get("stage", ""),
                record.get("error", ""), consumer_compile_seconds=record.get("consumer_compile_seconds"),
                run_seconds=record.get("run_seconds"), max_abs_error=record.get("max_abs_error"),
                max_rel_error=record.get("max_rel_error"), npu_operators=record.get("npu_operators"),
                cpu_operators=record.get("cpu_operators"), **run_measures,
            ))
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


@dataclasses.dataclass(frozen=True)
class Job:
    model: str
    configuration: str
    backend: str
    consumers: tuple[str, ...]


def run_jobs(jobs: list[Job], builds: dict, timeout: float, parallel: int, on_cells=None) -> list[Cell]:
    work_root = Path(tempfile.mkdtemp(prefix="onnx-torch-mlir-zoo-"))
    all_cells: list[Cell] = []
    lock = threading.Lock()

    def one(job: Job) -> list[Cell]:
        model = zoo_report.active().by_name[job.model]
        cells = run_job(model, builds[job.model], job.configuration, job.backend, list(job.consumers), timeout, work_root)
        with lock:
            all_cells.extend(cells)
            if on_cells:
                on_cells(job, cells)
        return cells

    try:
        with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
            list(pool.map(one, jobs))
    finally:
        shutil.rmtree(work_root, ignore_errors=True)
    return all_cells


# --------------------------------------------------------------------------------------------------
# The command line


def enabled_backends(requested: list[str] | None) -> list[str]:
    from onnx_torch_mlir import config

    return config.enabled_backends(requested or BACKENDS)


def enabled_configurations(requested: list[str] | None) -> tuple[list[str], list[str]]:
    """The configurations to run, and notes on those skipped."""
    from onnx_torch_mlir import config

    chosen, notes = [], []
    for configuration in requested or CONFIGURATIONS:
        if configuration == "torch-mlir" and not config.is_enabled("torch"):
            notes.append(f"configuration torch-mlir skipped: {config.refusal('torch')}")
            continue
        chosen.append(configuration)
    return chosen, notes


def _progress(total: int):
    done = [0]
    started = time.perf_counter()

    def report(job: Job, cells: list[Cell]) -> None:
        done[0] += 1
        parts = ", ".join(f"{cell.consumer} {zoo_report.short_outcome(cell)}"
                          + (f" (NPU {cell.npu_operators}, CPU {cell.cpu_operators})" if cell.npu_operators is not None else "")
                          for cell in cells)
        first = cells[0]
        measures = f"compile {first.compile_seconds} s, {first.compile_peak_mb} MB" if first.compile_seconds is not None else ""
        print(f"[{done[0]}/{total} {time.perf_counter() - started:6.0f} s] {job.model} {job.configuration} {job.backend}: "
              f"{parts}" + (f" ({measures})" if measures else ""), flush=True)
        for cell in cells:
            if cell.outcome != "pass" and cell.error and cell.outcome != "unavailable":
                print(f"      {cell.consumer}: {cell.outcome} at {cell.stage}: {cell.error[:240]}", flush=True)

    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="zoo", help="the zoo (default) or the wild corpus")
    parser.add_argument("-k", action="append", dest="patterns", metavar="PATTERN", help="only models matching (repeatable)")
    parser.add_argument("--backend", action="append", choices=BACKENDS, help="only this backend (repeatable)")
    parser.add_argument("--configuration", action="append", choices=CONFIGURATIONS, help="only this configuration (repeatable)")
    parser.add_argument("--consumer", action="append", choices=CONSUMERS, help="only this consumer (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="child processes at a time (default 2)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_SECONDS, help="seconds per child process")
    parser.add_argument("--slice", action="store_true", help="only the fast slice")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--update", action="store_true", help="rewrite docs/models.md, results and passing lists")
    mode.add_argument("--check", action="store_true", help="fail when a listed model no longer passes (slice, ours)")
    mode.add_argument("--report", action="store_true", help="only regenerate docs/models.md from the results files")
    parser.add_argument("--all", action="store_true", help="with --check: every model, not just the slice")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the models even when cached")
    parser.add_argument("--disable", action="append", default=[], metavar="PATH", help="switch a path off (tosa, stablehlo, torch)")
    args = parser.parse_args(argv)
    corpus = CORPORA[args.corpus]
    zoo_report.use(corpus)
    if args.disable:
        from onnx_torch_mlir import config

        config.disable_in_environment([name for value in args.disable for name in value.split(",")])

    if args.report:
        print(f"wrote {zoo_document.rewrite_document(REPOSITORY).relative_to(REPOSITORY)}")
        return 0
    if args.check:
        configurations, notes = ["ours"], []
        slice_only = not args.all
    else:
        configurations, notes = enabled_configurations(args.configuration)
        slice_only = args.slice
    backends = enabled_backends(args.backend)
    consumers = list(args.consumer or CONSUMERS)
    models = build_zoo.select(args.patterns, slice_only, corpus)
    if not models:
        print(f"no {corpus.name} model matches", file=sys.stderr)
        return 2
    for note in notes:
        print(note)
    skipped_backends = [backend for backend in (args.backend or BACKENDS) if backend not in backends]
    if skipped_backends:
        print(f"backends switched off, not run: {', '.join(skipped_backends)}")
    for consumer in consumers:
        unavailable = CONSUMER_AVAILABLE[consumer]() if consumer in CONSUMER_AVAILABLE else None
        if unavailable:
            print(f"consumer {consumer} unavailable: {unavailable}")

    started = time.perf_counter()
    print(f"building {len(models)} models (cache {build_zoo.cache_root(corpus)})", flush=True)
    builds = build_zoo.build_all(models, args.jobs, args.rebuild, on_result=lambda r: print("  " + build_zoo.describe(r), flush=True),
                                 corpus=corpus)
    build_seconds = time.perf_counter() - started
    jobs = [Job(model.name, configuration, backend, tuple(chosen))
            for model in models for configuration in configurations for backend in backends
            if zoo_report.applies(configuration, model, backend)
            and (chosen := job_consumers(builds[model.name], backend, consumers))]
    print(f"running {len(jobs)} compile jobs ({sum(len(job.consumers) for job in jobs)} cells), {args.jobs} at a time",
          flush=True)
    cells = run_jobs(jobs, builds, args.timeout, args.jobs, on_cells=_progress(len(jobs)))
    elapsed = time.perf_counter() - started

    if args.check:
        return _check(cells, builds, args, elapsed)
    print(zoo_report.summary_text(cells))
    print(f"{len(models)} models, {len(cells)} cells in {elapsed:.0f} s (building {build_seconds:.0f} s)")
    if args.update:
        written = zoo_report.update_files(
            REPOSITORY, cells, builds, configurations, [m.name for m in models],
            run_note={"date": time.strftime("%Y-%m-%d", time.gmtime()), "seconds": round(elapsed), "jobs": args.jobs,
                      "models": len(models), "cells": len(cells)},
        )
        for path in written:
            print(f"wrote {path.relative_to(REPOSITORY)}")
    return 0


def _check(cells: list[Cell], builds: dict, args, elapsed: float) -> int:
    passing = zoo_report.read_passing(REPOSITORY / zoo_report.active().passing_directory)
    verdict = zoo_report.check(cells, passing)
    if verdict.regressions:
        retry = sorted({(cell.model, cell.configuration, cell.backend) for cell in verdict.regressions})
        print(f"retrying {len(retry)} failed jobs once", flush=True)
        jobs = [Job(model, configuration, backend, tuple(sorted({c.consumer for c in verdict.regressions
                                                                   if (c.model, c.configuration, c.backend) == (model, configuration, backend)})))
                for model, configuration, backend in retry]
        retried = run_jobs(jobs, builds, args.timeout, args.jobs, on_cells=_progress(len(jobs)))
        again = {(c.model, c.configuration, c.backend, c.consumer): c for c in retried}
        cells = [again.get((c.model, c.configuration, c.backend, c.consumer), c) for c in cells]
        verdict = zoo_report.check(cells, passing)
    print(zoo_report.summary_text(cells))
    print(verdict.describe())
    print(f"{zoo_report.active().name} check: {len(cells)} cells in {elapsed:.0f} s")
    return 1 if verdict.regressions else 0


if __name__ == "__main__":
    sys.exit(main())
