"""Compiling a program for the CPU and calling it on numpy arrays."""

import ctypes
import dataclasses
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from torch_mlir import execution_engine, ir

from onnx_torch_mlir.errors import RunnerError, UnsupportedTypeError
from onnx_torch_mlir.ir_walk import has_op
from onnx_torch_mlir.isolation import interruptible
from onnx_torch_mlir.runtime import assertions, calling_convention, lowering, native_code, program_cache, weights
from onnx_torch_mlir.runtime import split_compilation
from onnx_torch_mlir.runtime import custom_ops as custom_op_runtime
from onnx_torch_mlir.runtime.dtypes import accepts_input_dtype, canonical_input, numpy_dtype_for
from onnx_torch_mlir.runtime.memref import ranked_descriptor_of

_OPT_LEVEL = 2
# A program whose every tensor is static and holds at most this many elements compiles at LLVM's opt
# level 0 (small_program_opt_level).
SMALL_PROGRAM_ELEMENTS = 1 << 14


@dataclass(frozen=True)
class _TensorSpec:
    """What the runner knows of one argument or result: dtype and shape (None: dynamic)."""

    mlir_type: str
    dtype: np.dtype
    shape: tuple[int | None, ...]

    @staticmethod
    def of(mlir_type: ir.Type, where: str) -> "_TensorSpec":
        if not isinstance(mlir_type, ir.RankedTensorType):
            raise UnsupportedTypeError(
                f"{where} has type {mlir_type}; the reference CPU runner takes and returns ranked tensors only"
            )
        dtype = numpy_dtype_for(str(mlir_type.element_type), where)
        shape = tuple(None if mlir_type.is_dynamic_dim(i) else size for i, size in enumerate(mlir_type.shape))
        return _TensorSpec(str(mlir_type), dtype, shape)

    def conform(self, value, index: int) -> np.ndarray:
        """`value` as a C-contiguous array this argument accepts, or a RunnerError."""
        array = np.asarray(value, order="C")
        fits = (
            accepts_input_dtype(self.dtype, array.dtype)
            and array.ndim == len(self.shape)
            and all(want is None or want == got for want, got in zip(self.shape, array.shape))
        )
        if not fits:
            raise RunnerError(
                f"argument {index} expects {self.mlir_type}, got an array of shape "
                f"{tuple(array.shape)} and dtype {array.dtype}"
            )
        return canonical_input(array, self.dtype)


class CompiledProgram:
    """A compiled program for the host CPU; call it with numpy arrays."""

    def __init__(
        self,
        signature: calling_convention.Signature,
        inputs,
        symbols: native_code.RuntimeSymbols,
        code: "native_code.JitCode | native_code.LoadedLibrary",
        runtime_assertions: "list[assertions.Assertion] | None" = None,
        hoisted_weights: "list[np.ndarray] | None" = None,
    ):
        self.entry = signature.entry
        # Passed after the inputs on every call (weights.py): arrays the program reads, never writes.
        self._weights = list(hoisted_weights or [])
        self.input_types = signature.input_types
        self.result_types = signature.result_types
        self._inputs: list[_TensorSpec] = inputs
        self._code = code
        self._lock = threading.Lock()
        # The result consumers fill `outputs`; failed runtime assertions are recorded by number.
        self._symbols = symbols
        self._outputs = symbols.outputs
        self._failed_assertions = symbols.failed_assertions
        self._assertions = list(runtime_assertions or [])
        # A JIT compiles on the first lookup; LLVM reports failures (such as
        # an unresolved symbol) on stderr only.
        with _captured_stderr() as llvm_messages:
            try:
                self._function = code.entry_function(calling_convention.ENTRY_SYMBOL)
            except RuntimeError:
                self._function = None
        if self._function is None:
            detail = "; ".join(line.strip() for line in llvm_messages if line.strip())[:500]
            raise RunnerError(
                f"JIT compilation of @{self.entry} failed; a function it calls may be missing "
                f"from the process: {detail or 'LLVM gave no details'}"
            )

    @property
    def from_program_cache(self) -> bool:
        """Whether the machine code came from the program cache (program_cache.py) instead of LLVM."""
        return self._code.from_cache

    @property
    def weights_passed_as_arguments(self) -> int:
        """How many of the program's constants are passed on each call instead of compiled in."""
        return len(self._weights)

    def __call__(self, *inputs) -> list[np.ndarray]:
        if len(inputs) != len(self._inputs):
            raise RunnerError(f"@{self.entry} takes {len(self._inputs)} inputs, got {len(inputs)}")
        arrays = [spec.conform(value, index) for index, (spec, value) in enumerate(zip(self._inputs, inputs))]
        arrays += self._weights
        descriptors = [ranked_descriptor_of(array) for array in arrays]
        descriptor_pointers = [ctypes.c_void_p(ctypes.addressof(d)) for d in descriptors]
        packed = (ctypes.c_void_p * len(arrays))(*(ctypes.addressof(p) for p in descriptor_pointers))
        with self._lock:
            with interruptible():
                self._function(packed)
            outputs = list(self._outputs)
            self._outputs[:] = [None] * len(self._outputs)
            failed = list(self._failed_assertions)
            self._failed_assertions.clear()
        if failed:
            # The code ran on past the failure, so its results mean nothing.
            raise RunnerError(
                f"@{self.entry}: runtime assertion failed: {self._assertions[failed[0]].describe()}"
            )
        if any(output is None for output in outputs):
            raise RunnerError(f"@{self.entry} did not deliver all of its results")
        return outputs



@contextmanager
def _captured_stderr() -> Iterator[list[str]]:
    """The lines written to file descriptor 2 while the block runs (they are not shown).

    The descriptor is process-wide, so other threads' stderr output in that
    window is captured too.
    """
    lines: list[str] = []
    sys.stderr.flush()
    with tempfile.TemporaryFile() as capture:
        saved = os.dup(2)
        os.dup2(capture.fileno(), 2)
        try:
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            lines += capture.read().decode(errors="replace").splitlines()


def compile_for_cpu(
    module: "ir.Module | str",
    *,
    input_dialect: str = "linalg-on-tensors",
    entry: str | None = None,
    custom_ops: dict | None = None,
    cache: "program_cache.ProgramCache | bool | None" = None,
    weights_file=None,
) -> CompiledProgram:
    """Lower `module` (Linalg-on-tensors, TOSA or StableHLO) to native code and JIT it.

    `custom_ops` maps custom-op names to Python implementations (see custom_ops.py).
    `cache`: where compiled programs are kept between runs (program_cache.py): None or True for the
    default (the environment's choice), False for none, or a ProgramCache.
    `weights_file`: for a module compiled with weights="arguments", the safetensors file written
    with it (or a mapping of weight name to array); the program passes each weight argument its
    array (memory-mapped), so it is called with the model's inputs only.
    """
    lowering.check_input_dialect(input_dialect)
    cache = program_cache.resolve(cache)
    weights.refuse_parameters(module)
    hoisted_module, hoisted = (None, []) if isinstance(module, str) else weights.without_large_weights(module, entry)
    with lowering.runner_context() as runner:
        program = lowering.parse_module(hoisted_module or module)
        custom_op_bindings = custom_op_runtime.bind(program, custom_ops)
        function = calling_convention.find_entry(program, entry)
        signature = calling_convention.signature_of(function)
        weight_specs, external = weights.weight_arguments(function, weights_file)
        hoisted = [spec.conform(array, index) for index, (spec, array) in
                   enumerate(zip(_specs_of(weight_specs, "weight argument"), external))] + hoisted
        user_inputs = function.type.inputs[: len(function.type.inputs) - len(hoisted)]
        signature = dataclasses.replace(signature, input_types=signature.input_types[: len(user_inputs)])
        inputs = [_TensorSpec.of(t, f"argument {i}") for i, t in enumerate(user_inputs)]
        results = [_TensorSpec.of(t, f"result {i}") for i, t in enumerate(function.type.results)]
        calling_convention.make_callable_from_python(program, function)
        opt_level = small_program_opt_level(program)
        parts = split_compilation.parts_wanted()
        runtime_assertions = lowering.lower_to_llvm(
            runner, program, input_dialect, calling_convention.ENTRY_SYMBOL,
            outline_min_loop_nests=split_compilation.MIN_LOOP_NESTS if parts > 1 else None)
        symbols = native_code.RuntimeSymbols([spec.dtype for spec in results], custom_op_runtime.symbols(custom_op_bindings))
        key = cache.key_of(program, opt_level) if cache else None
        code = cache.load(key, symbols.addresses) if cache else None
        started = time.thread_time()  # CPU time: a loaded machine must not make small programs look costly
        if code is None and parts > 1 and split_compilation.splittable(program):
            with split_compilation.temporary_build_directory() as build:
                code, seconds = _compile_in_parts(runner.context, program, parts, symbols, Path(build))
                if cache:
                    cache.store_library(key, Path(code.path), list(symbols.addresses), seconds)
        elif code is None:
            code = native_code.JitCode(_jit(runner.context, program, opt_level, position_independent=cache is not None))
            code.bind(symbols.addresses)
    compiled = CompiledProgram(signature, inputs, symbols, code, runtime_assertions, hoisted)
    if cache and isinstance(code, native_code.JitCode):
        cache.store(key, code.engine, list(symbols.addresses), time.thread_time() - started)
    return custom_op_runtime.ProgramWithCustomOps(compiled, custom_op_bindings) if custom_op_bindings else compiled


def _specs_of(types, what: str) -> list[_TensorSpec]:
    return [_TensorSpec.of(mlir_type, f"{what} {index}") for index, mlir_type in enumerate(types)]


def run(
    module: "ir.Module | str",
    inputs: Sequence,
    *,
    input_dialect: str = "linalg-on-tensors",
    entry: str | None = None,
    result_dtypes: Sequence | None = None,
    weights_file=None,
) -> list[np.ndarray]:
    """Compile `module`, call it on `inputs`, and return its results.

    `result_dtypes` optionally reinterprets each result (None keeps it) as a
    dtype of the same byte width, e.g. np.uint8 for an i8 result. `weights_file` is
    compile_for_cpu's.
    """
    outputs = compile_for_cpu(module, input_dialect=input_dialect, entry=entry, weights_file=weights_file)(*inputs)
    if result_dtypes is None:
        return outputs
    return reinterpret_results(outputs, result_dtypes)


def reinterpret_results(outputs: list[np.ndarray], result_dtypes: Sequence) -> list[np.ndarray]:
    """View each result as the dtype given for it (None keeps it): same byte width only.

    Linalg integers are signless, so results come back signed; the caller who
    knows the declared types (an ONNX model's outputs) views them as unsigned.
    """
    if len(result_dtypes) != len(outputs):
        raise RunnerError(f"{len(result_dtypes)} result dtypes given for {len(outputs)} results")
    return [_reinterpret(output, dtype, index) for index, (output, dtype) in enumerate(zip(outputs, result_dtypes))]


def _reinterpret(output: np.ndarray, dtype, index: int) -> np.ndarray:
    if dtype is None:
        return output
    dtype = np.dtype(dtype)
    if dtype.itemsize != output.dtype.itemsize:
        raise RunnerError(f"result {index} of dtype {output.dtype} cannot be reinterpreted as {dtype}")
    return output.view(dtype)


def _compile_in_parts(context: ir.Context, module: ir.Module, parts: int, symbols: native_code.RuntimeSymbols,
                      build: Path) -> "tuple[native_code.LoadedLibrary, float]":
    """`module` compiled on several cores (split_compilation.py), loaded and bound; and its CPU seconds."""
    names = list(symbols.addresses)
    with lowering.collected_diagnostics(context) as diagnostics:
        try:
            code, seconds = split_compilation.compile_in_parts(module, parts, _OPT_LEVEL, names, names, build)
        except (RuntimeError, OSError, subprocess.SubprocessError) as error:
            detail = "; ".join(diagnostics[:2]) or str(error)
            raise RunnerError(f"JIT compilation failed: {detail}") from None
    code.bind(symbols.addresses)
    return code, seconds


def small_program_opt_level(program: ir.Module) -> int:
    """LLVM's opt level for `program` (before its lowering): 0 when every ranked tensor in it is static
    and holds at most SMALL_PROGRAM_ELEMENTS elements, else _OPT_LEVEL.

    LLVM's optimisation is most of the JIT's time on a small program, which runs in microseconds at
    any level: 200 ONNX node cases' compile stage took 12.2 s at opt level 2 and 8.1 s at 0 (lowering to
    the LLVM dialect, 3.4-3.9 s, is the same), the conformance suite's Linalg pass 146 s against
    101 s. Both levels compute the same values: without fast-math flags LLVM neither reorders nor
    contracts float arithmetic. A dynamic dim may hold anything, so such a program is optimised.
    """
    def large(value_type: ir.Type) -> bool:
        # Unranked tensors only pass results to the calling convention's consumers: views of ranked ones.
        if not isinstance(value_type, (ir.RankedTensorType, ir.MemRefType)):
            return False
        shaped = ir.ShapedType(value_type)
        return not shaped.has_static_shape or math.prod(shaped.shape) > SMALL_PROGRAM_ELEMENTS

    def touches_large(operation: ir.Operation) -> bool:
        return any(large(value.type) for values in (operation.results, operation.operands) for value in values)

    return _OPT_LEVEL if has_op(program, touches_large) else 0


def _jit(context: ir.Context, module: ir.Module, opt_level: int,
         position_independent: bool) -> execution_engine.ExecutionEngine:
    """The ExecutionEngine for `module`; position-independent code when it may be linked into a
    shared library for the program cache."""
    with lowering.collected_diagnostics(context) as diagnostics:
        try:
            return execution_engine.ExecutionEngine(module, opt_level=opt_level, enable_pic=position_independent)
        except RuntimeError as error:
            detail = "; ".join(diagnostics[:2]) or str(error)
            raise RunnerError(f"JIT compilation failed: {detail}") from None
