"""Arm's TOSA reference model as a consumer of our TOSA: what a TOSA user runs.

    module = onnx_torch_mlir.compile(model, output_type="tosa")
    program = compile_with_tosa_reference(module)
    outputs = program(x)                      # a list of numpy arrays

TOSA's users hand a graph to Arm's tools as the TOSA *flatbuffer* (the serialization the reference
model, Vela and the conformance suite read), not as MLIR. The tools come from the `tosa-tools`
wheel: its `tosa-opt` (an MLIR opt tool with the TOSA serializer) writes the flatbuffer with
`--tosa-serialize`, and `tosa_reference_model` runs it on `.npy` files, one per graph input, and
writes one `.npy` per graph output. Both binaries are run from the wheel's own `bin` directory.

The module goes to `tosa-opt` as MLIR *bytecode* written from the caller's module (which is not
changed): torch-mlir's MLIR and the one in tosa-tools are different builds, whose custom assembly
may drift, and bytecode carries large weights as raw bytes, not hex. `tosa-opt` registers only the
builtin, func and TOSA dialects: any other op left in the module (a tensor `arith.constant`, a
`tensor.extract_slice`) fails serialization with its name in the message. The serializer names the
entry function's arguments `TosaInput_<i>` and its results `TosaOutput_<i>`, but a result that is an
argument (an Identity graph) keeps that tensor's name: the names are read back from the flatbuffer's
main block (with tosa-tools' flatbuffer reader) and every output is asked for by its name (the
reference model writes nothing when one is missing).

Before serializing, `tosa-opt --tosa-validate` checks the module against the target it needs
(`required_target`: pro_fp and/or pro_int, the extensions of the types and ops it uses), as a TOSA
user does before handing a graph on: an op the specification does not allow there fails as "TOSA
validate (<target>): ..." rather than somewhere inside the tools (docs/consumers-tosa.md).

The flatbuffer has no dynamic dims: a module whose signature has one is refused with the --dim hint.
The reference model checks the specification's REQUIRE conditions while it computes (a POW of a
negative base, a shift out of range): a graph that relies on behaviour the specification leaves
undefined stops there, and the error names the condition.

Every failure is a `TosaReferenceError` whose one-line message says the stage ("TOSA validate", "TOSA
serialize" or "TOSA reference model") and the first meaningful line of the tool's diagnostic.
"""

from __future__ import annotations

import subprocess
import tempfile
from importlib import metadata
from pathlib import Path

import numpy as np
from torch_mlir import ir

from ..errors import OnnxTorchMlirError

TOSA_TOOLS_PIN = "tosa-tools==2026.8.0"


class TosaReferenceError(OnnxTorchMlirError):
    """tosa-opt could not serialize a module, or the TOSA reference model refused or failed to run it."""


def tool_path(name: str) -> Path:
    """The path of one of tosa-tools' binaries (`tosa-opt`, `tosa_reference_model`)."""
    try:
        path = Path(metadata.distribution("tosa-tools").locate_file(Path("bin") / name))
    except metadata.PackageNotFoundError:
        path = None
    if path is None or not path.is_file():
        raise TosaReferenceError(f"TOSA reference model: {name} is not installed; pip install --no-deps {TOSA_TOOLS_PIN} "
                                 "(its metadata pins an older numpy than ours; the binaries need none of it)")
    return path


_NUMPY_TYPES = {"f32": np.float32, "f16": np.float16, "i1": np.bool_, "i8": np.int8, "i16": np.int16,
                "i32": np.int32, "i64": np.int64}


def _numpy_dtype(element_type: ir.Type):
    name = str(element_type)
    if name == "bf16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    if name not in _NUMPY_TYPES:
        raise TosaReferenceError(f"TOSA reference model: no numpy form for a graph input or output of type {name}")
    return np.dtype(_NUMPY_TYPES[name])


def _first_line(text: str, markers=("REQUIRE", "ERROR_IF", "unsupported", "ERROR", "error:", "Error", "FATAL")) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for marker in markers:
        for line in lines:
            if marker in line:
                return line
    return lines[-1] if lines else "no diagnostic"


def _entry(module: ir.Module) -> ir.Operation:
    functions = [operation.operation for operation in module.body.operations if operation.operation.name == "func.func"]
    if not functions:
        raise TosaReferenceError("TOSA serialize: the module has no function")
    return functions[0]


_FLOAT_TYPES = ("f16", "bf16", "f32", "f8E4M3FN", "f8E5M2")
_INTEGER_TYPES = ("i8", "i16", "i32", "i48")
_EXTENSION_TYPES = {"i64": "int64", "bf16": "bf16", "f8E4M3FN": "fp8e4m3", "f8E5M2": "fp8e5m2", "i16": "int16",
                    "i4": "int4"}
_VERSION_1_1_EXTENSIONS = ("int64",)  # EXT-INT64 is new in TOSA 1.1


def required_target(module: ir.Module) -> str:
    """The options of `tosa-attach-target` for the profiles and extensions `module` uses: pro_fp for
    float data, pro_int for integer data, an extension per type only one has (int64, bf16, fp8e4m3,
    fp8e5m2, int16, int4) and controlflow for `tosa.cond_if`/`tosa.while_loop`; specification 1.1.draft
    when an extension needs it (EXT-INT64), else 1.0; no level limits (level 8K's MAX_RANK is 6)."""
    elements: set[str] = set()
    control_flow = []

    def visit(operation: ir.Operation) -> ir.WalkResult:
        if operation.name in ("tosa.cond_if", "tosa.while_loop"):
            control_flow.append(operation.name)
        for result in operation.results:
            if isinstance(result.type, ir.ShapedType):
                elements.add(str(ir.ShapedType(result.type).element_type))
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(visit)
        for argument_type in ir.FunctionType(ir.TypeAttr(_entry(module).attributes["function_type"]).value).inputs:
            if isinstance(argument_type, ir.ShapedType):
                elements.add(str(ir.ShapedType(argument_type).element_type))
    profiles = [profile for profile, types in (("pro_int", _INTEGER_TYPES), ("pro_fp", _FLOAT_TYPES))
                if elements & set(types)] or ["pro_fp"]
    extensions = sorted({extension for element, extension in _EXTENSION_TYPES.items() if element in elements})
    if control_flow:
        extensions.append("controlflow")
    version = "1.1.draft" if set(extensions) & set(_VERSION_1_1_EXTENSIONS) else "1.0"
    options = [f"specification_version={version}", f"profiles={','.join(profiles)}"]
    if extensions:
        options.append(f"extensions={','.join(extensions)}")
    return " ".join(options + ["level=none"])


def serialize(module: ir.Module, path: str | Path, validate: bool = True) -> None:
    """Write `module` (TOSA, static shapes) as a TOSA flatbuffer at `path` with tosa-tools' tosa-opt;
    with `validate`, its `tosa-validate` checks the module first against `required_target(module)`."""
    from ..mlir_passes import dynamic_signature_reason

    reason = dynamic_signature_reason(module, "a TOSA flatbuffer has static shapes", "TOSA")
    if reason:
        raise TosaReferenceError(f"TOSA serialize: {reason}")
    path = Path(path)
    bytecode = path.with_suffix(".mlirbc")
    with open(bytecode, "wb") as output:
        module.operation.write_bytecode(output)
    tosa_opt = str(tool_path("tosa-opt"))
    try:
        if validate:
            target = required_target(module)
            completed = subprocess.run([tosa_opt, str(bytecode), f"--tosa-attach-target={target}",
                                        "--tosa-validate=strict-op-spec-alignment", "-o", "/dev/null"],
                                       capture_output=True, text=True)
            if completed.returncode != 0:
                line = _first_line(completed.stderr + completed.stdout, ("error:",))
                raise TosaReferenceError(f"TOSA validate ({target}): {line.split('error: ', 1)[-1]}")
        completed = subprocess.run([tosa_opt, str(bytecode), f"--tosa-serialize=tosa-flatbuffer-filename={path}",
                                    "-o", "/dev/null"], capture_output=True, text=True)
    finally:
        bytecode.unlink()
    if completed.returncode != 0 or not path.is_file():
        raise TosaReferenceError(f"TOSA serialize: {_first_line(completed.stderr + completed.stdout)}")


def graph_signature(flatbuffer: bytes) -> tuple[list[str], list[str]]:
    """(input names, output names) of the main block of a serialized TOSA graph."""
    try:
        from tosa.TosaGraph import TosaGraph
    except ImportError as error:
        raise TosaReferenceError(f"TOSA reference model: tosa-tools' flatbuffer reader cannot be imported ({error})") from None
    graph = TosaGraph.GetRootAs(flatbuffer, 0)
    if graph.RegionsLength() == 0 or graph.Regions(0).BlocksLength() == 0:
        raise TosaReferenceError("TOSA serialize: the flatbuffer has no main block")
    block = graph.Regions(0).Blocks(0)
    return ([block.Inputs(index).decode() for index in range(block.InputsLength())],
            [block.Outputs(index).decode() for index in range(block.OutputsLength())])


class TosaReferenceProgram:
    """A serialized TOSA graph run by the reference model; call it with numpy arrays, one per argument."""

    def __init__(self, flatbuffer: bytes, inputs: list[tuple[tuple[int, ...], np.dtype]], results: list[np.dtype]):
        self.flatbuffer = flatbuffer
        self._inputs = inputs
        self._results = results
        self._input_names, self._output_names = graph_signature(flatbuffer)
        if len(self._input_names) != len(inputs) or len(self._output_names) != len(results):
            raise TosaReferenceError(f"TOSA serialize: the serialized graph takes {len(self._input_names)} inputs and "
                                     f"gives {len(self._output_names)} outputs, the entry function takes {len(inputs)} "
                                     f"and gives {len(results)}")

    def _conform(self, value, index: int) -> np.ndarray:
        shape, dtype = self._inputs[index]
        array = np.asarray(value, order="C")  # ascontiguousarray would make a 0-d array 1-d
        if array.dtype != dtype:
            if array.dtype.kind in "iub" and dtype.kind in "iub" and array.dtype.itemsize == dtype.itemsize:
                array = array.view(dtype)
            else:
                raise TosaReferenceError(f"TOSA reference model: input {index} is {array.dtype}, the graph takes {dtype}")
        if tuple(array.shape) != shape:
            raise TosaReferenceError(f"TOSA reference model: input {index} has shape {list(array.shape)}, "
                                     f"the graph takes {list(shape)}")
        return array

    def __call__(self, *inputs) -> list[np.ndarray]:
        if len(inputs) != len(self._inputs):
            raise TosaReferenceError(f"TOSA reference model: the graph takes {len(self._inputs)} inputs, "
                                     f"{len(inputs)} given")
        arrays = [self._conform(value, index) for index, value in enumerate(inputs)]
        return self._run(arrays, self._output_names)

    def _run(self, arrays: list[np.ndarray], wanted: list[str]) -> list[np.ndarray]:
        with tempfile.TemporaryDirectory(prefix="tosa-reference-") as directory:
            work = Path(directory)
            (work / "graph.tosa").write_bytes(self.flatbuffer)
            input_files = []
            for index, array in enumerate(arrays):
                input_files.append(str(work / f"input-{index}.npy"))
                np.save(input_files[-1], array)
            output_files = [f"output-{index}.npy" for index in range(len(wanted))]
            command = [str(tool_path("tosa_reference_model")), "--tosa_file", str(work / "graph.tosa"),
                       "--output_dir", str(work), "--flatbuffer_dir", str(work),
                       "--ofm_name", ",".join(wanted), "--ofm_file", ",".join(output_files)]
            if arrays:
                command += ["--ifm_name", ",".join(self._input_names), "--ifm_file", ",".join(input_files)]
            completed = subprocess.run(command, capture_output=True, text=True, cwd=work)
            text = completed.stdout + completed.stderr
            missing = [name for name in output_files if not (work / name).is_file()]
            if completed.returncode != 0 or missing or "REQUIRE() fails" in text or "ERROR_IF() fails" in text:
                raise TosaReferenceError(f"TOSA reference model: {_first_line(text)}")
            return [np.load(work / file) for file in output_files]


def compile_with_tosa_reference(module: ir.Module, validate: bool = True) -> TosaReferenceProgram:
    """Serialize `module` (TOSA, static shapes) to the TOSA flatbuffer for Arm's reference model, after
    tosa-validate against the profiles and extensions it needs (`required_target`) unless not `validate`."""
    with tempfile.TemporaryDirectory(prefix="tosa-serialize-") as directory:
        path = Path(directory) / "graph.tosa"
        serialize(module, path, validate)
        flatbuffer = path.read_bytes()
    with module.context:
        function_type = ir.FunctionType(ir.TypeAttr(_entry(module).attributes["function_type"]).value)
        inputs = [(tuple(ir.RankedTensorType(t).shape), _numpy_dtype(ir.RankedTensorType(t).element_type))
                  for t in function_type.inputs]
        results = [_numpy_dtype(ir.RankedTensorType(t).element_type) for t in function_type.results]
    return TosaReferenceProgram(flatbuffer, inputs, results)
