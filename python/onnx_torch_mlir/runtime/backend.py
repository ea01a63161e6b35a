"""An `onnx.backend.base.Backend` over `compile` and the reference CPU runner.

So ONNX's own backend test runner (`onnx.backend.test.BackendTest`) can drive
the whole compiler:

    from onnx_torch_mlir.runtime.backend import OnnxTorchMlirBackend
    outputs = OnnxTorchMlirBackend.run_model(model, [x])

Keyword options of `prepare`/`run_model`/`run_node`: `backend` ("linalg-on-tensors",
"tosa" or "stablehlo"; default "linalg-on-tensors"), `importer`, `converter`, `dims`,
`input_shapes`, `weights` and `weights_min_bytes` (as for `onnx_torch_mlir.compile`; with
weights="arguments" the weights file goes to a temporary directory and the runner maps it from
there). Only the "CPU" device is supported.
"""

import numpy as np
import onnx
from onnx import helper
from onnx.backend.base import Backend, BackendRep, namedtupledict

from ..errors import OnnxTorchMlirError

DEFAULT_BACKEND = "linalg-on-tensors"


def declared_output_dtypes(model: onnx.ModelProto) -> list:
    """The numpy dtype each graph output declares (None for a non-tensor output)."""
    dtypes = []
    for output in model.graph.output:
        tensor_type = output.type.tensor_type if output.type.HasField("tensor_type") else None
        dtypes.append(helper.tensor_dtype_to_np_dtype(tensor_type.elem_type) if tensor_type else None)
    return dtypes


class OnnxTorchMlirBackendRep(BackendRep):
    """A model compiled to native code, ready to run many times."""

    def __init__(self, model: onnx.ModelProto, program, output_names: list[str], string_bytes: int | None = None):
        from ..string_forms import DEFAULT_STRING_BYTES as DEFAULT_WIDTH

        self.program = program
        self.output_names = output_names
        self.output_dtypes = declared_output_dtypes(model)
        self.string_bytes = string_bytes or DEFAULT_WIDTH

    def run(self, inputs, **kwargs):
        from . import reinterpret_results
        from .string_inputs import encode_strings, is_string_array

        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        inputs = [encode_strings(array, self.string_bytes, f"input {index}") if is_string_array(array) else array
                  for index, array in enumerate(inputs)]
        outputs = reinterpret_results(self.program(*inputs), self.output_dtypes)
        return namedtupledict("Outputs", self.output_names)(*outputs)


class OnnxTorchMlirBackend(Backend):
    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device.upper() == "CPU"

    @classmethod
    def prepare(cls, model, device: str = "CPU", **kwargs) -> OnnxTorchMlirBackendRep:
        from .. import compile as compile_model
        from ..importer import load_model
        from ..pipelines import ROUTE_OPTIONS
        from . import compile_for_cpu

        if not cls.supports_device(device):
            raise OnnxTorchMlirError(f"device '{device}' is not supported: the reference runner runs on the CPU")
        model = load_model(model)
        backend = kwargs.pop("backend", DEFAULT_BACKEND)
        keys = ("importer", "converter", "dims", "input_shapes", "weights", "weights_min_bytes", "string_bytes",
                *ROUTE_OPTIONS)
        options = {key: kwargs[key] for key in keys if key in kwargs}
        if options.get("weights") != "arguments":
            program = compile_for_cpu(compile_model(model, backend, **options), input_dialect=backend)
        else:
            from ..weights_forms import temporary_weights_file

            # The runner maps the file, which may go once it is mapped.
            with temporary_weights_file("arguments") as weights_file:
                module = compile_model(model, backend, weights_file=weights_file, **options)
                program = compile_for_cpu(module, input_dialect=backend, weights_file=weights_file)
        return OnnxTorchMlirBackendRep(model, program, [output.name for output in model.graph.output],
                                       options.get("string_bytes"))

    @classmethod
    def run_model(cls, model, inputs, device: str = "CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: onnx.NodeProto, inputs, device: str = "CPU", outputs_info=None, **kwargs):
        """Wrap `node` in a one-node model (types from `inputs`, shapes inferred) and run it."""
        opset = kwargs.pop("opset_version", onnx.defs.onnx_opset_version())
        arrays = [np.asarray(value) for value in inputs]
        graph_inputs = [
            helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape)
            for name, array in zip(node.input, arrays)
        ]
        graph_outputs = [helper.make_empty_tensor_value_info(name) for name in node.output]
        graph = helper.make_graph([node], f"{node.op_type}_node", graph_inputs, graph_outputs)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid(node.domain or "", opset)])
        model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        _type_outputs_from_inference(model)
        return cls.run_model(model, arrays, device, **kwargs)


def _type_outputs_from_inference(model: onnx.ModelProto) -> None:
    """Give the graph outputs the types shape inference found for them."""
    inferred = {value.name: value for value in model.graph.value_info}
    for output in model.graph.output:
        if output.name in inferred:
            output.CopyFrom(inferred[output.name])


prepare = OnnxTorchMlirBackend.prepare
run_model = OnnxTorchMlirBackend.run_model
run_node = OnnxTorchMlirBackend.run_node
supports_device = OnnxTorchMlirBackend.supports_device
