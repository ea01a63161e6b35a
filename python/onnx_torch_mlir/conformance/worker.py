"""Running one conformance case, stage by stage, in a worker process.

Stages, in order: "load", "import", "convert" (to the Torch backend contract),
"lower" (to the backend), "compile" (the reference runner's JIT), "run",
"compare". A result names the first stage that failed and the first line of
its error; "pass" means the program ran and every output matched.
"""

import time
import traceback
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import numpy_helper

from .cases import CasePayload
from ..runtime.backend import declared_output_dtypes
from .compare import mismatch
from .configurations import Configuration
from .. import sequence_io

STAGES = ("load", "import", "convert", "lower", "compile", "run", "compare")


@dataclass
class CaseResult:
    case_id: str
    status: str  # "pass", "fail", "crash" or "timeout"
    stage: str = ""  # the stage that failed; "" on pass
    message: str = ""  # the first line of the error
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == "pass"


class StageFailure(Exception):
    def __init__(self, stage: str, message: str):
        super().__init__(message)
        self.stage = stage


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    line = text.splitlines()[0] if text else type(error).__name__
    return line[:300]


def run_case(case: CasePayload, configuration: Configuration, backend: str) -> CaseResult:
    started = time.perf_counter()
    try:
        _run_stages(case, configuration, backend)
    except StageFailure as failure:
        return CaseResult(case.case_id, "fail", failure.stage, str(failure), time.perf_counter() - started)
    return CaseResult(case.case_id, "pass", seconds=time.perf_counter() - started)


def _stage(name: str, action, *args, **kwargs):
    try:
        return action(*args, **kwargs)
    except StageFailure:
        raise
    except Exception as error:  # noqa: BLE001 - every failure is data for the report
        message = first_line(error)
        if not isinstance(error, _EXPECTED_ERRORS):
            frame = traceback.extract_tb(error.__traceback__)[-1]
            message = f"{type(error).__name__}: {message} [{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}]"
        raise StageFailure(name, message) from None


def _run_stages(case: CasePayload, configuration: Configuration, backend: str) -> None:
    from .. import compiler, peers, pipelines, runtime
    from ..mlir_context import make_context

    model, data_sets = _stage("load", case.load)
    if sequence_io.has_sequence_io(model):
        model, data_sets = _stage("load", _specialize_sequence_io, model, data_sets)
    if configuration.upgrade_opset:
        model = peers.upgrade_opset(model, configuration.upgrade_opset)
    module = _stage("import", compiler.import_model, model, configuration.importer, make_context())
    _stage("convert", compiler.convert_to_torch, module, configuration.converter, target=backend)
    _stage("lower", pipelines.lower_torch_to_backend, module, backend)
    program = _stage("compile", runtime.compile_for_cpu, module, input_dialect=backend)
    result_dtypes = declared_output_dtypes(model)
    float32_arguments = _float32_arguments(module) if backend == "tosa" else None
    for inputs, expected in data_sets:
        arrays = _stage("run", _as_arrays, inputs, "input")
        if float32_arguments is not None:
            arrays = _float64_as_float32(arrays, float32_arguments)
        expected = _stage("run", _as_arrays, expected, "expected output")
        outputs = _stage("run", program, *arrays)
        if backend == "tosa":
            outputs = _float32_widened(outputs, result_dtypes)
        outputs = _stage("compare", runtime.reinterpret_results, outputs, result_dtypes)
        reason = mismatch(expected, outputs, case.rtol, case.atol)
        if reason:
            raise StageFailure("compare", reason)


def _float32_arguments(module) -> list[bool]:
    """Which arguments of the module's entry function are float32 (TOSA has no float64, so the TOSA
    route computes a model's float64 in float32: transforms/tosa/float64.py)."""
    from torch_mlir import ir

    with module.context:
        for operation in module.body.operations:
            if operation.operation.name == "func.func" and "sym_visibility" not in operation.attributes:
                function = ir.FunctionType(ir.TypeAttr(operation.attributes["function_type"]).value)
                return [isinstance(getattr(type_, "element_type", None), ir.F32Type) for type_ in function.inputs]
    return []


def _float64_as_float32(arrays: list, float32_arguments: list[bool]) -> list:
    """Float64 inputs given as float32 where the TOSA program takes float32 for them."""
    return [array.astype(np.float32) if array.dtype == np.float64 and index < len(float32_arguments)
            and float32_arguments[index] else array for index, array in enumerate(arrays)]


def _float32_widened(outputs: list, result_dtypes: list) -> list:
    """A float32 result the model declares float64, widened: the TOSA route computed it in float32."""
    return [np.asarray(output).astype(np.float64) if dtype is not None and np.dtype(dtype) == np.float64
            and np.asarray(output).dtype == np.float32 else output for output, dtype in zip(outputs, result_dtypes)]


def _specialize_sequence_io(model, data_sets):
    """A model with sequence or optional graph inputs/outputs, specialized to tensors for the first
    data set's sequence lengths and optionals' presence (`sequence_io.specialize`, the way a user
    compiles such a model), with every data set flattened to match."""
    specialization = sequence_io.specialize(model, *data_sets[0])
    flat = [(specialization.inputs(inputs), specialization.expected(expected)) for inputs, expected in data_sets]
    return specialization.model, flat


def _as_arrays(values, what: str) -> list[np.ndarray]:
    """Case data as numpy arrays: numpy scalars become 0-d arrays, TensorProtos are decoded.

    ONNX stores data numpy cannot hold natively (float8, int4, ...) as TensorProtos;
    ml_dtypes gives numpy a dtype for them. Sequences, maps and optionals are not tensors.
    """
    arrays = []
    for index, value in enumerate(values):
        if isinstance(value, onnx.TensorProto):
            value = numpy_helper.to_array(value)
        elif isinstance(value, np.generic):
            value = np.asarray(value)
        if not isinstance(value, np.ndarray):
            raise StageFailure("run", f"{what} {index} is a {type(value).__name__}, not a tensor")
        arrays.append(value)
    return arrays


def _expected_errors():
    from ..errors import OnnxTorchMlirError

    return (OnnxTorchMlirError,)


_EXPECTED_ERRORS = _expected_errors()


def serve(connection, case_runner=run_case) -> None:
    """Worker process main loop: receive (case, configuration, backend), send CaseResult."""
    import os
    import sys

    # MLIR prints some diagnostics straight to stderr; keep the parent's terminal clean.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    sys.stderr = open(os.devnull, "w")
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        if task is None:
            return
        case, configuration, backend = task
        try:
            result = case_runner(case, configuration, backend)
        except Exception as error:  # noqa: BLE001 - a harness bug must not look like a compiler crash
            result = CaseResult(case.case_id, "crash", "", f"harness error: {type(error).__name__}: {first_line(error)}")
        connection.send(result)
