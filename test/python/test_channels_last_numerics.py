"""Channels-last Linalg (transforms/linalg/channels_last.py, the default `conv_layout`) computes what
onnxruntime does, on the reference runner and on IREE: small networks of 1-D and 2-D convolutions,
depthwise and grouped convolutions, pools and the elementwise ops between them, plus the forms the rewrite must
carry over exactly (a bias broadcast, an average pool that counts its windows from the loop indices,
a global pool that reduces over the NHWC loops)."""

import importlib.util
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from consumers import program
from onnxruntime_reference import assert_matches, expected

_MODELS = Path(__file__).resolve().parent.parent / "lit" / "linalg" / "Inputs" / "channels_last_models.py"


def _lit_model(name: str) -> onnx.ModelProto:
    spec = importlib.util.spec_from_file_location("channels_last_models", _MODELS)
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    return models.MODELS[name]()


def _average_pool_excluding_pads() -> onnx.ModelProto:
    """Conv, then an AveragePool whose pads are not counted, as ONNX's precomputed-pads case has it
    (torch-mlir divides each window's sum by a count computed from `linalg.index`), then Relu: the
    division must read the NHWC loops as NHWC."""
    rng = np.random.default_rng(9)
    weight = onnx.numpy_helper.from_array(rng.standard_normal((6, 3, 3, 3)).astype(np.float32), "w")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("AveragePool", ["c"], ["p"], kernel_shape=[5, 3], pads=[2, 1, 2, 1]),
        helper.make_node("Relu", ["p"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "average", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 7, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 7, 5])], [weight])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


MODELS = {"block": lambda: _lit_model("block"), "grouped": lambda: _lit_model("grouped"),
          "one-d": lambda: _lit_model("one_d"), "average-pool-excluding-pads": _average_pool_excluding_pads}


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("name", MODELS)
def test_channels_last_matches_onnxruntime(name, consumer):
    model = MODELS[name]()
    shape = [dim.dim_value for dim in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    text = str(module)
    assert "linalg.transpose" in text and "nchw" not in text.replace("ngchw", "") and "ncw" not in text  # rewritten
    assert_matches(program(module, "linalg-on-tensors", consumer)(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


def test_as_imported_keeps_torch_mlir_forms():
    module = onnx_torch_mlir.compile(_lit_model("block"), "linalg-on-tensors", conv_layout="as-imported")
    text = str(module)
    assert "linalg.conv_2d_nchw_fchw" in text and "linalg.transpose" not in text


def test_unknown_conv_layout_is_refused():
    from onnx_torch_mlir.errors import PipelineError

    with pytest.raises(PipelineError, match="unknown conv-layout 'nhwc': expected one of channels-last, as-imported"):
        onnx_torch_mlir.compile(_lit_model("block"), "linalg-on-tensors", conv_layout="nhwc")
