"""Compiling a large program with LLVM on several cores: its loop nests in parts, linked together.

LLVM's optimisation and code generation run on one thread and are nearly all of a cold run of a
real model (BERT-base: about 26 s of CPU). When the machine has more than one core, the lowering
moves each loop nest of a large program into a function of its own (loop_outlining.py); here the
LLVM-dialect module is divided into parts of about equal size — the entry function and its
C-interface wrapper in the first, the loop nests shared out by size — and each part is compiled to
an object file by the ExecutionEngine at the usual optimisation level, the first in this process
and the others at the same time in worker processes (part_compiler.py: the Python binding holds
the interpreter lock while LLVM runs, so threads would take turns). The C compiler links the
objects with the runtime symbols' trampolines into a shared library (as the program cache does,
program_cache.py), which is loaded like a cached program and then stored in the cache.

Nothing is split without a C compiler, on one core, or on a CPU the trampolines do not support;
`ONNX_TORCH_MLIR_JIT_PARTS` sets the number of parts (1 turns this off; default: the usable cores,
at most 4).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from torch_mlir import ir

from onnx_torch_mlir.errors import RunnerError
from onnx_torch_mlir.runtime import part_compiler, program_cache
from onnx_torch_mlir.runtime.loop_barriers import BARRIER_GLOBAL
from onnx_torch_mlir.runtime.loop_outlining import OUTLINED_PREFIX
from onnx_torch_mlir.runtime.native_code import LoadedLibrary

# A program is split when a function has at least this many top-level loop nests. BERT-base has 565
# (LLVM: 26 s of CPU in one piece, about 19 in two); ResNet-50 198 (LLVM: about 2 s in one piece,
# 3.5 in two, so no faster on two cores).
MIN_LOOP_NESTS = 300
_MAX_PARTS = 4
# LLVM's time per operation in the functions that hold no loop (the entry function: allocations
# and calls) against the loop nests' (measured on BERT-base: a fourth to a half).
_STRAIGHT_LINE_DISCOUNT = 3
_WORKER_TIMEOUT_SECONDS = 1800


def parts_wanted() -> int:
    """How many parts a large program is compiled in here (1: not split)."""
    setting = os.environ.get("ONNX_TORCH_MLIR_JIT_PARTS", "").strip()
    if setting:
        try:
            return max(1, int(setting))
        except ValueError:
            return 1
    if program_cache._c_compiler() is None or program_cache._trampolines([]) is None:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, _MAX_PARTS))


def splittable(module: ir.Module) -> bool:
    """Whether `module` (lowered to the LLVM dialect) has outlined loop nests to share out, and every
    global may be copied into each part: a constant, or the loop barriers' byte, which nothing
    writes (a variable or a global other modules see would be one per part)."""
    has_nests = False
    for operation in module.body.operations:
        operation = operation.operation
        if operation.name == "llvm.func" and part_compiler.is_definition(operation):
            has_nests |= ir.StringAttr(operation.attributes["sym_name"]).value.startswith(OUTLINED_PREFIX)
        elif operation.name == "llvm.mlir.global":
            name = ir.StringAttr(operation.attributes["sym_name"]).value
            if not part_compiler.is_local(operation) or not ("constant" in operation.attributes or name == BARRIER_GLOBAL):
                return False
    return has_nests


def partition(module: ir.Module, parts: int) -> list[set[str]]:
    """The external function definitions each part keeps: everything but the outlined loop nests in
    the first, the loop nests shared out largest first to the part with the least work (operations,
    the entry function's discounted)."""
    sizes: list[int] = [0] * parts
    kept: list[set[str]] = [set() for _ in range(parts)]
    nests = []
    for operation in module.body.operations:
        operation = operation.operation
        if operation.name != "llvm.func" or not part_compiler.is_definition(operation):
            continue
        name, size = ir.StringAttr(operation.attributes["sym_name"]).value, _operation_count(operation)
        if name.startswith(OUTLINED_PREFIX):
            nests.append((size, name))
        elif not part_compiler.is_local(operation):
            kept[0].add(name)
            sizes[0] += size // _STRAIGHT_LINE_DISCOUNT
    for size, name in sorted(nests, reverse=True):
        smallest = sizes.index(min(sizes))
        kept[smallest].add(name)
        sizes[smallest] += size
    return [names for names in kept if names]


def _operation_count(operation: ir.Operation) -> int:
    count = 0

    def visit(_: ir.Operation) -> ir.WalkResult:
        nonlocal count
        count += 1
        return ir.WalkResult.ADVANCE

    operation.walk(visit)
    return count


def compile_in_parts(module: ir.Module, parts: int, opt_level: int, runtime_names: list[str],
                     slot_names: list[str], build: Path) -> tuple[LoadedLibrary, float]:
    """Compile `module` (lowered to the LLVM dialect; consumed: this process compiles the first part
    of it in place) in `parts` parts into a shared library under `build`, loaded; and the CPU
    seconds that took in this thread and the workers."""
    started = time.thread_time()
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    kept = partition(module, parts)
    module_path = build / "program.mlirbc"
    with open(module_path, "wb") as file:
        module.operation.write_bytecode(file)
    objects = [build / f"part{index}.o" for index in range(len(kept))]
    workers = [_start_worker(module_path, names, objects[index], opt_level, runtime_names, build, index)
               for index, names in enumerate(kept) if index > 0]
    try:
        part_compiler.compile_part(module, kept[0], str(objects[0]), opt_level, runtime_names)
    finally:
        failures = [_finish(worker) for worker in workers]
    failures = [failure for failure in failures if failure]
    if failures:
        raise RunnerError(f"compiling a part of the program failed: {failures[0]}")
    for path in objects:
        if not path.exists() or path.stat().st_size == 0:
            raise RunnerError(f"compiling a part of the program wrote no object file ({path.name})")
    trampolines = program_cache._trampolines(slot_names)
    library = program_cache._link(program_cache._c_compiler(), objects, build, trampolines)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (time.thread_time() - started + children.ru_utime - children_before.ru_utime
               + children.ru_stime - children_before.ru_stime)
    return LoadedLibrary(str(library), slot_names, from_cache=False), seconds


def _start_worker(module_path: Path, kept: set[str], object_path: Path, opt_level: int,
                  runtime_names: list[str], build: Path, index: int) -> subprocess.Popen:
    spec_path = build / f"part{index}.json"
    spec_path.write_text(json.dumps({"kept": sorted(kept), "object": str(object_path), "opt_level": opt_level,
                                     "runtime": runtime_names}))
    command = [sys.executable, part_compiler.__file__, str(module_path), str(spec_path)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _finish(worker: subprocess.Popen) -> str | None:
    """Wait for a worker; what went wrong, or None."""
    try:
        _, stderr = worker.communicate(timeout=_WORKER_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.communicate()
        return "a worker took too long"
    if worker.returncode != 0:
        lines = stderr.decode(errors="replace").strip().splitlines()
        return (lines[-1] if lines else f"exit status {worker.returncode}")[:300]
    return None


def temporary_build_directory() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="onnx-torch-mlir-parts-")
