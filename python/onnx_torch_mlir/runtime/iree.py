"""IREE as a second, independent consumer of every backend's output.

    program = compile_with_iree(onnx_torch_mlir.compile(model, output_type="tosa"), "tosa")
    outputs = program(x)                      # a list of numpy arrays

`compile_with_iree` compiles in-process with IREE's compiler library (the
embedding API behind `iree.compiler.api`, not the `iree-compile` subprocess)
for the host CPU (`llvm-cpu`, `--iree-llvmcpu-target-cpu=host`), and the
program runs on IREE's `local-sync` CPU driver. Nothing of our own runner is
shared: only the signature of the entry function is read on our side. (Its
multithreaded `local-task` driver fails at run time on dynamically shaped
programs, "transient buffer has not been committed", even a Relu feeding a
GlobalAveragePool of a dynamic image size, where `local-sync` runs the same
compiled module correctly: an IREE runtime issue, not one of the input.)

The program goes to IREE as MLIR *bytecode* written from a parsed module,
never as the text our printer produced: torch-mlir's MLIR and IREE's are
different builds, and custom assembly drifts between them (IREE 3.13 cannot
parse the `tosa.const_shape {values = ...}` that torch-mlir prints) while the
bytecode of the same ops reads fine. Bytecode also carries large constants
(`dense_resource` blobs) as raw bytes instead of hex text: for a model with
100 MB of weights, IREE's peak memory above the compiled module was ~150 MB
from bytecode against ~430 MB from (generic) text, whose hex doubles the size.
It is written from the caller's module without touching it (text is parsed
afresh first). IREE's VM flatbuffer, which holds the weights again, is kept
once, 64-byte aligned so the VM wraps it instead of copying it.

IREE's input type, per backend (`--iree-input-type`):

- "linalg-on-tensors" -> `tm_tensor`: torch-mlir's Linalg output may hold its
  TMTensor ops (`tm_tensor.scatter` for ScatterElements/ScatterND, sort, scan,
  attention), which IREE's plain pipeline (`none`) rejects as illegal; the
  `tm_tensor` input conversion turns them into IREE's LinalgExt ops and leaves
  plain Linalg alone.
- "tosa" -> `tosa`: IREE's TOSA input pipeline (TOSA to Linalg and its own
  conversions around it). It also checks TOSA's profiles, which our
  reference runner's upstream passes do not: `tosa.add` on i8 or `tosa.mul`
  on f64 is refused there ("did not align with any profile").
- "stablehlo" -> `stablehlo`: plain StableHLO and CHLO as torch-mlir emits
  them (`stablehlo_xla` would add XLA's tuple and entry-point conventions,
  which torch-mlir's output does not use).

`auto` would usually guess the same, but the backend is known, and saying so
turns a mislabelled program into a clear error instead of a silent re-route.

Flags are IREE's defaults except for the target and one input option:
`--iree-input-demote-f64-to-f32` is on by default in IREE and would turn an
ONNX model's f64 into f32 (different numbers and a different result dtype),
so it is switched off. The optimization levels stay at IREE's defaults
(`--iree-opt-level=O0`, `--iree-global-optimization-opt-level=O0`,
`--iree-dispatch-creation-opt-level=O2`, `--iree-llvmcpu-mlir-opt-level=O0`),
which keep compile time low; checking numbers needs no more. `target-cpu=host`
costs no measurable compile time against the generic CPU. For speed, `run` and
`verify --consumer iree` compile with `compile_with_recommended_flags`, which
adds RECOMMENDED_FLAGS (data tiling) and falls back to these where IREE fails.

Values: a numpy array per argument, C-contiguous copies are made as needed.
Integers are checked by width only (MLIR's `iN` is signless: int8 or uint8
both fit `i8`); results come back as the MLIR result type says, exactly as
the reference runner returns them: signless `iN` as signed `intN`, `uiN` as
`uintN`, `i1` as bool, f16, bf16 (ml_dtypes), f32, f64, complex64/128. A
caller who knows an ONNX model's declared output types reinterprets them with
`reinterpret_results(outputs, declared_output_dtypes(model))` (both in this
package's runtime), or `program(*inputs, result_dtypes=...)`.
float8 values travel as ml_dtypes arrays (or uint8 bit patterns) of the HAL's
float8 types (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E8M0FNU); sub-byte integers,
float4, float6, IEEE E4M3 and `index` at the boundary are refused with an
IreeError at compile time.

Weights outside the module (transforms/external_weights.py): a module compiled with
weights="arguments" takes its weights as trailing arguments; `compile_with_iree(...,
weights_file=)` reads them from the safetensors file, uploads them to the device once, and the
program is called with the model's inputs only. A module compiled with weights="parameters" reads
IREE parameters of scope "model"; `weights_file=` is the parameter archive (or a safetensors or
GGUF file holding them), memory-mapped by a `ParameterIndex` and served by IREE's `io_parameters`
module, as `iree-run-module --parameters=model=FILE` does.

Every failure is an `IreeError` whose one-line message says the stage
("IREE compile" or "IREE run"), the entry function and the first meaningful
line of IREE's diagnostic.
"""

from __future__ import annotations

import ctypes
import io
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from onnx_torch_mlir.errors import OnnxTorchMlirError, RunnerError
from onnx_torch_mlir.isolation import interruptible

T = TypeVar("T")

# The backend names of `onnx_torch_mlir.compile` -> IREE's `--iree-input-type`.
INPUT_TYPES = {"linalg-on-tensors": "tm_tensor", "tosa": "tosa", "stablehlo": "stablehlo"}
DRIVER = "local-sync"
_COMPILER_FLAGS = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    "--iree-input-demote-f64-to-f32=false",
)
# What `run` and `verify --consumer iree` (and `compile_with_recommended_flags`) put before a user's
# `--iree-flag`s. Data tiling (off by default in IREE 3.13) ran our ResNet-50 227 -> 169 ms and BERT-base
# 196 -> 123 ms on an AVX2 host, and ViT-B/16 7327 -> 859 ms on an AVX-512 host, where IREE's default
# matrix-product code is 4x slower than its own AVX2 code (docs/consumers-iree.md, session 23).
RECOMMENDED_FLAGS: tuple[str, ...] = ("--iree-opt-data-tiling=true",)
_MESSAGE_LIMIT = 300
_SEVERITY_ERROR = 2  # iree_compiler_diagnostic_severity_t: NOTE 0, WARNING 1, ERROR 2, REMARK 3


class IreeError(OnnxTorchMlirError):
    """IREE could not compile or run a program (the message names the stage)."""


@dataclass(frozen=True)
class _TensorSpec:
    """One argument or result: MLIR spelling, numpy dtype, shape (None: dynamic)."""

    mlir_type: str
    dtype: np.dtype
    shape: tuple[int | None, ...]

    def conform(self, value, index: int, entry: str) -> np.ndarray:
        """`value` as the C-contiguous array IREE gets for this argument, or an IreeError."""
        from onnx_torch_mlir.runtime.dtypes import accepts_input_dtype, canonical_input

        array = np.asarray(value)
        fits = (
            accepts_input_dtype(self.dtype, array.dtype)
            and array.ndim == len(self.shape)
            and all(want is None or want == got for want, got in zip(self.shape, array.shape))
        )
        if not fits:
            raise IreeError(
                f"IREE run of @{entry}: argument {index} expects {self.mlir_type}, got an array of shape "
                f"{tuple(array.shape)} and dtype {array.dtype}"
            )
        # IREE checks an argument's shape but not its element type, so this check is
        # the guard. An integer array travels as the declared dtype (same width, so
        # uint8 data for an i8 argument keeps its bits). np.asarray, not
        # np.ascontiguousarray, which makes a 0-d array 1-d.
        array = canonical_input(array, self.dtype)
        return np.asarray(array.view(self.dtype) if array.dtype != self.dtype else array, order="C")


class IreeProgram:
    """A program compiled by IREE for the host CPU; call it with numpy arrays."""

    def __init__(self, entry: str, inputs: list[_TensorSpec], results: list[_TensorSpec], vmfb,
                 weights: "list[tuple[_TensorSpec, np.ndarray]] | None" = None, parameters_file=None):
        self.entry = entry
        self.input_types = tuple(spec.mlir_type for spec in inputs)
        self.result_types = tuple(spec.mlir_type for spec in results)
        self.result_dtypes = tuple(spec.dtype for spec in results)
        self._vmfb = vmfb
        self._inputs = inputs
        self._results = results
        self._lock = threading.Lock()
        runtime = _iree_runtime()
        device, instance = _device_and_instance()
        self._device = device
        try:
            # Wrapped in place (the buffer is aligned for it), not copied: it may hold all the weights.
            vm_module = runtime.VmModule.from_buffer(instance, vmfb, warn_if_copy=False)
            modules = [runtime.create_hal_module(instance, device)]
            if parameters_file is not None:
                modules.append(_parameters_module(instance, parameters_file))
            self._context = runtime.VmContext(instance, modules=[*modules, vm_module])
            self._function = vm_module.lookup_function(entry)
        except (RuntimeError, ValueError) as error:
            raise IreeError(f"IREE run of @{entry}: cannot load the compiled module: {_runtime_message(error)}") from None
        if self._function is None:
            raise IreeError(f"IREE run of @{entry}: the compiled module exports no function @{entry}")
        # On the device once, passed after the inputs on every call; the program only reads them.
        self._weight_views = [self._buffer_view_of(spec.conform(array, len(inputs) + index, entry))
                              for index, (spec, array) in enumerate(weights or [])]

    @property
    def vmfb(self) -> bytes:
        """The compiled module (an IREE VM flatbuffer), e.g. to save for `iree-run-module`."""
        return self._vmfb.tobytes()

    def __call__(self, *inputs, result_dtypes: Sequence | None = None) -> list[np.ndarray]:
        """Run the entry function; `result_dtypes` optionally reinterprets results (see the module docstring)."""
        runtime = _iree_runtime()
        if len(inputs) != len(self._inputs):
            raise IreeError(f"IREE run of @{self.entry}: takes {len(self._inputs)} inputs, got {len(inputs)}")
        arrays = [spec.conform(value, index, self.entry) for index, (spec, value) in enumerate(zip(self._inputs, inputs))]
        try:
            arguments = runtime.VmVariantList(len(arrays) + len(self._weight_views))
            for array in arrays:
                arguments.push_ref(self._buffer_view_of(array))
            for view in self._weight_views:
                arguments.push_ref(view)
            returned = runtime.VmVariantList(len(self._results))
            with self._lock, interruptible():
                self._context.invoke(self._function, arguments, returned)
            if len(returned) != len(self._results):
                raise IreeError(
                    f"IREE run of @{self.entry}: returned {len(returned)} values for {len(self._results)} results"
                )
            outputs = [self._to_numpy(returned, index, spec) for index, spec in enumerate(self._results)]
        except (RuntimeError, ValueError) as error:
            raise IreeError(f"IREE run of @{self.entry} failed: {_runtime_message(error)}") from None
        if result_dtypes is None:
            return outputs
        from onnx_torch_mlir.runtime.runner import reinterpret_results

        try:
            return reinterpret_results(outputs, result_dtypes)
        except RunnerError as error:
            raise IreeError(f"IREE run of @{self.entry}: {error}") from None

    def _buffer_view_of(self, array: np.ndarray):
        """A device copy of `array`, shaped explicitly (a 0-d array's buffer would read as shape [1])."""
        runtime = _iree_runtime()
        buffer = self._device.allocator.allocate_buffer_copy(
            memory_type=runtime.MemoryType.DEVICE_LOCAL,
            allowed_usage=runtime.BufferUsage.DEFAULT,
            device=self._device,
            buffer=array.reshape(-1).view(np.uint8),
        )
        return runtime.HalBufferView(buffer, list(array.shape), _hal_element_type(array.dtype))

    def _to_numpy(self, returned, index: int, spec: _TensorSpec) -> np.ndarray:
        runtime = _iree_runtime()
        buffer_view = returned.get_as_object(index, runtime.HalBufferView)
        shape = tuple(buffer_view.shape)
        if buffer_view.byte_length != int(np.prod(shape, dtype=np.int64)) * spec.dtype.itemsize:
            raise IreeError(
                f"IREE run of @{self.entry}: result {index} ({spec.mlir_type}) came back with "
                f"{buffer_view.byte_length} bytes for shape {list(shape)}"
            )
        if 0 in shape:
            return np.empty(shape, spec.dtype)
        # The local CPU drivers' buffers are host-visible: map the bytes and copy
        # them out under the result's own dtype (IREE's dtype table has no bf16).
        mapped = buffer_view.map()
        raw = np.array(mapped.asarray([buffer_view.byte_length], np.dtype(np.uint8)), copy=True)
        return raw.view(spec.dtype).reshape(shape)


def compile_with_iree(
    program, input_dialect: str, *, entry: str | None = None, weights_file=None, extra_flags: Sequence[str] = ()
) -> IreeProgram:
    """Compile `program` (an `ir.Module` from `onnx_torch_mlir.compile`, or MLIR text) with IREE.

    `input_dialect` is the backend that produced it: "linalg-on-tensors", "tosa"
    or "stablehlo"; `entry` names the function to call (default: the module's
    single public function); `extra_flags` go to IREE after ours (e.g.
    `--iree-opt-level=O2`). The caller's module is not modified. `weights_file` is the file
    written with a module compiled with weights="arguments" (safetensors, or a mapping of name to
    array) or weights="parameters" (the parameter archive); see the module docstring.
    """
    if input_dialect not in INPUT_TYPES:
        raise IreeError(
            f"IREE compile: unknown input dialect {input_dialect!r}; expected one of {', '.join(INPUT_TYPES)}"
        )
    read = _bytecode_and_signature(program, entry, weights_file)
    vmfb = _compile_bytecode(read.bytecode, INPUT_TYPES[input_dialect], f"@{read.entry} ({input_dialect})",
                            extra_flags)
    return IreeProgram(read.entry, read.inputs, read.results, vmfb, read.weights,
                       weights_file if read.reads_parameters else None)


def compile_with_recommended_flags(compile_with_flags: Callable[[Sequence[str]], T],
                                   extra_flags: Sequence[str] = ()) -> tuple[T, str | None]:
    """`compile_with_flags(RECOMMENDED_FLAGS + extra_flags)`, and the IreeError's message it raised if it
    had to compile once more with `extra_flags` alone.

    Works around IREE 3.13's data tiling, which fails to compile some 1x1 convolutions for AVX2 targets
    (MobileNetV3-Small's 96 to 576 channels on 7x7, every path: "One or more operations with large
    vector sizes (16384 bytes) were found") and compiles them for AVX-512 ones. Delete the fallback when
    a pinned IREE compiles that model with data tiling for `--iree-llvmcpu-target-cpu=znver3`.
    """
    try:
        return compile_with_flags((*RECOMMENDED_FLAGS, *extra_flags)), None
    except IreeError as error:
        return compile_with_flags(tuple(extra_flags)), str(error)


def compile_file_with_iree(
    path, input_type: str, entry: str, inputs: Sequence, results: Sequence, extra_flags: Sequence[str] = ()
) -> IreeProgram:
    """Compile an MLIR file another tool wrote with the flags `compile_with_iree` uses.

    For programs our bindings need not read, e.g. `iree-import-onnx`'s torch-ONNX form
    (`input_type` "onnx", IREE's own ONNX conversion): `input_type` is IREE's
    `--iree-input-type`, `entry` the function to call, and `inputs` and `results`
    are example arrays with the entry's argument and result shapes and dtypes.
    """
    specs = [
        [_TensorSpec(f"{array.dtype}{list(array.shape)}", array.dtype, tuple(array.shape)) for array in map(np.asarray, arrays)]
        for arrays in (inputs, results)
    ]
    vmfb = _compile_bytecode(None, input_type, f"@{entry} ({input_type})", extra_flags, path=str(path))
    return IreeProgram(entry, specs[0], specs[1], vmfb)


@dataclass
class _ReadProgram:
    """What is read of a program before IREE compiles it."""

    bytecode: bytes
    entry: str
    inputs: list[_TensorSpec]  # the model's inputs
    results: list[_TensorSpec]
    weights: list[tuple[_TensorSpec, np.ndarray]]  # weight arguments and their arrays
    reads_parameters: bool


def _bytecode_and_signature(program, entry: str | None, weights_file=None) -> _ReadProgram:
    """The program as MLIR bytecode, its entry function's name and tensor specs, and its weights."""
    from onnx_torch_mlir.runtime import lowering

    if not isinstance(program, str):
        # The caller's module is only read: written out as bytecode, never changed.
        return _read_module(program, entry, weights_file)
    with lowering.runner_context() as runner:
        # IREE's own ops (util.global of weights="parameters") are unknown to torch-mlir's MLIR.
        runner.context.allow_unregistered_dialects = True
        try:
            module = lowering.parse_module(program)
        except RunnerError as error:
            raise IreeError(f"IREE compile: {error}") from None
        finally:
            runner.context.allow_unregistered_dialects = False
        return _read_module(module, entry, weights_file)


def _read_module(module, entry: str | None, weights_file=None) -> _ReadProgram:
    from onnx_torch_mlir.runtime import calling_convention, weights
    from onnx_torch_mlir.transforms.external_weights import parameter_globals

    try:
        function = calling_convention.find_entry(module, entry)
        weight_types, arrays = weights.weight_arguments(function, weights_file)
    except RunnerError as error:
        raise IreeError(f"IREE compile: {error}") from None
    name = function.sym_name.value
    reads_parameters = bool(parameter_globals(module))
    if reads_parameters and weights_file is None:
        raise IreeError(f"IREE compile of @{name}: the module reads IREE parameters (compiled with "
                        "weights='parameters'): pass the parameter archive written with it (weights_file=, --weights-file)")
    function_type = function.type
    model_inputs = function_type.inputs[: len(function_type.inputs) - len(weight_types)]
    inputs = [_spec_of(t, f"argument {i}", name) for i, t in enumerate(model_inputs)]
    results = [_spec_of(t, f"result {i}", name) for i, t in enumerate(function_type.results)]
    weight_specs = [_spec_of(t, f"argument {len(inputs) + i}", name) for i, t in enumerate(weight_types)]
    return _ReadProgram(_bytecode_of(module), name, inputs, results, list(zip(weight_specs, arrays)), reads_parameters)


# ParameterIndex.load's formats, by file extension; other names are read as parameter archives.
_PARAMETER_FORMATS = {".irpa": "irpa", ".safetensors": "safetensors", ".gguf": "gguf"}


def _parameters_module(instance, parameters_file):
    """IREE's io_parameters module serving the file's parameters under the scope the module reads."""
    import os

    from onnx_torch_mlir.transforms.external_weights import PARAMETER_SCOPE

    runtime = _iree_runtime()
    path = os.fspath(parameters_file)
    if not os.path.isfile(path):
        raise IreeError(f"IREE run: no parameter archive {path}")
    index = runtime.ParameterIndex()
    index.load(path, format=_PARAMETER_FORMATS.get(os.path.splitext(path)[1], "irpa"))  # memory-mapped
    return runtime.create_io_parameters_module(instance, index.create_provider(scope=PARAMETER_SCOPE))


def _bytecode_of(module) -> bytes:
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    return buffer.getvalue()


# Float6/4 and index: numpy_dtype_for refuses or IREE's boundary differs.
_UNSUPPORTED_ELEMENT_PREFIXES = ("f6E", "f4E", "index")
# ml_dtypes float8 dtype name -> HAL element type name (those the HAL has).
_HAL_FLOAT8 = {
    "float8_e4m3fn": "FLOAT_8_E4M3_FN",
    "float8_e4m3fnuz": "FLOAT_8_E4M3_FNUZ",
    "float8_e5m2": "FLOAT_8_E5M2",
    "float8_e5m2fnuz": "FLOAT_8_E5M2_FNUZ",
    "float8_e8m0fnu": "FLOAT_8_E8M0_FNU",
}


def _spec_of(mlir_type, where: str, entry: str) -> _TensorSpec:
    from torch_mlir import ir

    from onnx_torch_mlir.errors import UnsupportedTypeError
    from onnx_torch_mlir.runtime.dtypes import numpy_dtype_for

    if not isinstance(mlir_type, ir.RankedTensorType):
        raise IreeError(f"IREE compile: @{entry} {where} has type {mlir_type}; only ranked tensors are exchanged")
    element = str(mlir_type.element_type)
    try:
        dtype = numpy_dtype_for(element, where)
    except UnsupportedTypeError:
        dtype = None
    if dtype is None or element.startswith(_UNSUPPORTED_ELEMENT_PREFIXES) or _hal_element_type(dtype) is None:
        raise IreeError(
            f"IREE compile: @{entry} {where} has element type {element}, which this consumer cannot "
            "exchange with IREE (supported: f16, bf16, f32, f64, float8 but IEEE E4M3, i1, i8-i64, complex)"
        )
    shape = tuple(None if mlir_type.is_dynamic_dim(i) else size for i, size in enumerate(mlir_type.shape))
    return _TensorSpec(str(mlir_type), dtype, shape)


def _hal_element_type(dtype: np.dtype):
    """The HAL element type of an array exchanged as `dtype` (None: not exchangeable)."""
    runtime = _iree_runtime()
    dtype = np.dtype(dtype)
    if dtype.name.startswith("float8"):
        return getattr(runtime.HalElementType, _HAL_FLOAT8.get(dtype.name, "-"), None)
    if dtype.kind in "iu":
        # MLIR's iN is signless, and so is the HAL's INT_N.
        return getattr(runtime.HalElementType, f"INT_{dtype.itemsize * 8}", None)
    return runtime.dtypes.map_dtype_to_hal_element_type(dtype)


# --- The compiler: IREE's embedding API, with diagnostics captured. ---

_DiagnosticCallback = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)


def _compile_bytecode(
    bytecode: bytes | None, input_type: str, what: str, extra_flags: Sequence[str] = (), path: str | None = None
):
    """IREE's VM flatbuffer for `bytecode` (a buffer in IREE's memory) or the file at `path`, or an
    IreeError with IREE's first error."""
    api, dylib = _iree_compiler_api()
    diagnostics: list[tuple[int, str]] = []

    def collect(severity, message, size, _user_data) -> None:
        diagnostics.append((severity, ctypes.string_at(message, size).decode(errors="replace")))

    callback = _DiagnosticCallback(collect)  # referenced until the session (and its invocation) is closed
    session = api.Session()
    try:
        try:
            session.set_flags(*_COMPILER_FLAGS, f"--iree-input-type={input_type}", *extra_flags)
        except ValueError as error:
            detail = "; ".join(line.strip() for line in str(error).splitlines() if line.strip())
            raise IreeError(f"IREE compile of {what}: bad compiler flags: {_first_line(detail)}") from None
        invocation = session.invocation()
        # The Python wrapper offers console diagnostics only (stderr); the C
        # API's callback gives them to us so they end up in the IreeError.
        dylib.ireeCompilerInvocationEnableCallbackDiagnostics(invocation._inv_p, 0, callback, None)
        if path is None:
            source = api.Source.wrap_buffer(session, bytecode, buffer_name="program.mlirbc")
        else:
            source = api.Source.open_file(session, path)
        if not invocation.parse_source(source):
            raise IreeError(f"IREE compile of {what}: cannot read the program: {_first_error(diagnostics)}")
        if not invocation.execute():
            raise IreeError(f"IREE compile of {what} failed: {_first_error(diagnostics)}")
        output = api.Output.open_membuffer()
        try:
            invocation.output_vm_bytecode(output)
            return _aligned_copy(output.map_memory())
        finally:
            # Freed now, not at interpreter exit (after IREE's global shutdown, which crashes).
            output.close()
    except (RuntimeError, ValueError) as error:  # the embedding API's own errors
        detail = _first_error(diagnostics) if diagnostics else _first_line(str(error))
        raise IreeError(f"IREE compile of {what} failed: {detail}") from None
    finally:
        session.close()


_VMFB_ALIGNMENT = 64


def _aligned_copy(buffer) -> np.ndarray:
    """`buffer`'s bytes in a numpy array starting on a 64-byte boundary, so IREE's VM wraps it without a copy."""
    size = len(buffer)
    storage = np.empty(size + _VMFB_ALIGNMENT, np.uint8)
    offset = -storage.ctypes.data % _VMFB_ALIGNMENT
    aligned = storage[offset : offset + size]
    ctypes.memmove(aligned.ctypes.data, ctypes.addressof(buffer), size)
    return aligned


def _first_error(diagnostics: list[tuple[int, str]]) -> str:
    errors = [message for severity, message in diagnostics if severity == _SEVERITY_ERROR]
    messages = errors or [message for _, message in diagnostics]
    return _first_line(messages[0]) if messages else "IREE gave no diagnostic"


def _first_line(message: str) -> str:
    line = next((line.strip() for line in message.splitlines() if line.strip()), "")
    return line if len(line) <= _MESSAGE_LIMIT else line[: _MESSAGE_LIMIT - 3] + "..."


def _runtime_message(error: Exception) -> str:
    """The informative part of an IREE runtime status: its code and text, without the source path or stack."""
    line = _first_line(str(error))
    line = line.removeprefix("Error invoking function: ")
    # "c/runtime/src/iree/.../file.c:225: INVALID_ARGUMENT; detail; while invoking ...; [ 1] ..."
    # or "<vm>:0: FAILED_PRECONDITION; message;"
    line = re.sub(r"^\S+:\d+: ", "", line)
    return _first_line(line.split("; while ")[0].split("; [")[0].rstrip("; "))


# --- Lazily loaded IREE packages (a test extra of this package) and the shared CPU device. ---

_runtime_lock = threading.Lock()
_shared_runtime: dict = {}


def _iree_runtime():
    try:
        import iree.runtime as runtime
    except ImportError:
        raise IreeError("IREE is not installed: pip install 'onnx-torch-mlir[iree]' (iree-base-runtime)") from None
    return runtime


def _iree_compiler_api():
    try:
        from iree.compiler import api
        from iree.compiler.api import ctypes_dl
    except ImportError:
        raise IreeError("IREE is not installed: pip install 'onnx-torch-mlir[iree]' (iree-base-compiler)") from None
    except (OSError, RuntimeError, ValueError) as error:
        raise IreeError(f"IREE compile: cannot load IREE's compiler library: {_first_line(str(error))}") from None
    dylib = ctypes_dl._dylib
    function = dylib.ireeCompilerInvocationEnableCallbackDiagnostics
    function.restype = None
    function.argtypes = [ctypes.c_void_p, ctypes.c_int, _DiagnosticCallback, ctypes.c_void_p]
    return api, dylib


def _device_and_instance():
    """One device and VM instance for the process."""
    with _runtime_lock:
        if "config" not in _shared_runtime:
            try:
                _shared_runtime["config"] = _iree_runtime().Config(DRIVER)
            except (RuntimeError, ValueError) as error:
                raise IreeError(f"IREE run: cannot create the {DRIVER} device: {_runtime_message(error)}") from None
        config = _shared_runtime["config"]
    return config.device, config.vm_instance
