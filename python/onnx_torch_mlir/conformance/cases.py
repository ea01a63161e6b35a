"""The conformance cases: ONNX's node cases and the model data shipped in the onnx wheel.

Suites:
- "node": `onnx.backend.test.case.node.collect_testcases()` (model, data sets and
  tolerance built in memory by ONNX's case generators);
- "pytorch-converted", "pytorch-operator", "simple": directories under
  `onnx/backend/test/data/<suite>/<case>/` with `model.onnx` and
  `test_data_set_*/{input,output}_*.pb`;
- "light": `onnx/backend/test/data/light/light_<name>.onnx` with the expected
  output beside it; inputs are ONNX's own deterministic dummy data
  (`arange(n) / n`, dynamic dimensions set to 1), as ONNX's backend runner makes them.

A case's identifier is "<suite>/<name>". Cases are sent to worker processes as
`CasePayload`s: plain picklable data, so a worker never re-runs the generators.
"""

import glob
import os
import warnings
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import numpy_helper

SUITES = ("node", "light", "pytorch-converted", "pytorch-operator", "simple")
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-7
DATA_ROOT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")


@dataclass
class CasePayload:
    """Everything a worker needs to run one case."""

    case_id: str
    rtol: float
    atol: float
    model_bytes: bytes | None = None  # node cases: the model, serialized
    data_sets: list = field(default_factory=list)  # node cases: [(inputs, outputs)]
    model_path: str | None = None  # directory suites: read by the worker

    def load(self):
        """(ModelProto, [(inputs, expected_outputs)]) with numpy arrays."""
        if self.model_bytes is not None:
            return onnx.load_from_string(self.model_bytes), self.data_sets
        model = onnx.load(self.model_path)
        if self.case_id.startswith("light/"):
            return model, [light_data_set(model, self.model_path)]
        return model, directory_data_sets(os.path.dirname(self.model_path), model)


def collect_cases(suites=SUITES) -> list[CasePayload]:
    cases = []
    for suite in suites:
        if suite == "node":
            cases += node_cases()
        elif suite == "light":
            cases += light_cases()
        else:
            cases += directory_cases(suite)
    return sorted(cases, key=lambda case: case.case_id)


def node_cases() -> list[CasePayload]:
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the generators' own overflow warnings
        with np.errstate(all="ignore"):
            generated = collect_testcases(None)
    return [
        CasePayload(
            case_id=f"node/{case.name}",
            rtol=case.rtol,
            atol=case.atol,
            model_bytes=case.model.SerializeToString(),
            data_sets=[(list(inputs), list(outputs)) for inputs, outputs in case.data_sets],
        )
        for case in generated
    ]


def directory_cases(suite: str) -> list[CasePayload]:
    cases = []
    for model_path in sorted(glob.glob(os.path.join(DATA_ROOT, suite, "*", "model.onnx"))):
        name = os.path.basename(os.path.dirname(model_path))
        cases.append(CasePayload(f"{suite}/{name}", DEFAULT_RTOL, DEFAULT_ATOL, model_path=model_path))
    return cases


def light_cases() -> list[CasePayload]:
    cases = []
    for model_path in sorted(glob.glob(os.path.join(DATA_ROOT, "light", "light_*.onnx"))):
        name = os.path.basename(model_path)[len("light_") : -len(".onnx")]
        cases.append(CasePayload(f"light/{name}", DEFAULT_RTOL, DEFAULT_ATOL, model_path=model_path))
    return cases


def graph_input_names(model: onnx.ModelProto) -> list[str]:
    """The graph inputs a caller feeds: those that are not initializers."""
    initializers = {initializer.name for initializer in model.graph.initializer}
    return [value.name for value in model.graph.input if value.name not in initializers]


def directory_data_sets(case_dir: str, model: onnx.ModelProto):
    data_sets = []
    for data_dir in sorted(glob.glob(os.path.join(case_dir, "test_data_set_*"))):
        inputs = _read_tensors(data_dir, "input")
        outputs = _read_tensors(data_dir, "output")
        data_sets.append((inputs, outputs))
    return data_sets


def _read_tensors(data_dir: str, prefix: str) -> list[np.ndarray]:
    count = len(glob.glob(os.path.join(data_dir, f"{prefix}_*.pb")))
    tensors = []
    for index in range(count):
        tensor = onnx.TensorProto()
        with open(os.path.join(data_dir, f"{prefix}_{index}.pb"), "rb") as stream:
            tensor.ParseFromString(stream.read())
        tensors.append(numpy_helper.to_array(tensor))
    return tensors


def light_data_set(model: onnx.ModelProto, model_path: str):
    """ONNX's dummy inputs for a light model and the expected outputs stored beside it."""
    initializers = {initializer.name for initializer in model.graph.initializer}
    inputs = []
    for value in model.graph.input:
        if value.name in initializers:
            continue
        shape = tuple(
            dim.dim_value if dim.HasField("dim_value") else 1 for dim in value.type.tensor_type.shape.dim
        )
        count = int(np.prod(shape))
        inputs.append((np.arange(count).reshape(shape) / count).astype(np.float32))
    prefix = os.path.splitext(model_path)[0]
    outputs = []
    for index in range(len(model.graph.output)):
        tensor = onnx.TensorProto()
        with open(f"{prefix}_output_{index}.pb", "rb") as stream:
            tensor.ParseFromString(stream.read())
        outputs.append(numpy_helper.to_array(tensor))
    return inputs, outputs
