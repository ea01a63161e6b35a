"""Compiling the same model twice gives identical bytes, as text and as bytecode (issue 12 item 5).

The model is a small zoo-like transformer block (embedding Gather, LayerNormalization, attention
with MatMul/Softmax, a GELU MLP, weights large enough to be stored as resource blobs, a symbolic
batch dim). Twice in one process, and in two processes with different hash seeds (Python's set
and dict-of-str iteration order must not leak into the output); the crash reproducer's replay
(onnx_torch_mlir.isolation) relies on this.
"""

import hashlib
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import config
from onnx_torch_mlir.pipelines import OUTPUT_TYPES

HIDDEN, VOCAB, SEQUENCE = 32, 50, 8


def _block_model() -> onnx.ModelProto:
    rng = np.random.default_rng(0)

    def weight(name, *shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    nodes = [
        helper.make_node("Gather", ["embedding", "ids"], ["x"], name="embed"),
        helper.make_node("LayerNormalization", ["x", "ln_scale", "ln_bias"], ["h"], name="ln", axis=-1),
        helper.make_node("MatMul", ["h", "wq"], ["q"], name="q"),
        helper.make_node("MatMul", ["h", "wk"], ["k"], name="k"),
        helper.make_node("MatMul", ["h", "wv"], ["v"], name="v"),
        helper.make_node("Transpose", ["k"], ["kt"], name="kt", perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["scores"], name="scores"),
        helper.make_node("Softmax", ["scores"], ["probs"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["probs", "v"], ["attended"], name="attend"),
        helper.make_node("Add", ["x", "attended"], ["r"], name="residual"),
        helper.make_node("MatMul", ["r", "w1"], ["m"], name="mlp_in"),
        helper.make_node("Gelu", ["m"], ["g"], name="gelu"),
        helper.make_node("MatMul", ["g", "w2"], ["y"], name="mlp_out"),
    ]
    initializers = [
        weight("embedding", VOCAB, HIDDEN), weight("ln_scale", HIDDEN), weight("ln_bias", HIDDEN),
        weight("wq", HIDDEN, HIDDEN), weight("wk", HIDDEN, HIDDEN), weight("wv", HIDDEN, HIDDEN),
        weight("w1", HIDDEN, 4 * HIDDEN), weight("w2", 4 * HIDDEN, HIDDEN),
    ]
    graph = helper.make_graph(
        nodes, "block", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", SEQUENCE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", SEQUENCE, HIDDEN])], initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def _output_bytes(model, output_type: str) -> tuple[bytes, bytes]:
    import io

    module = onnx_torch_mlir.compile(model, output_type, dims={"batch": 2})
    stream = io.BytesIO()
    module.operation.write_bytecode(stream)
    return str(module).encode(), stream.getvalue()


ENABLED = [output_type for output_type in OUTPUT_TYPES if output_type in config.enabled_backends(OUTPUT_TYPES)]


@pytest.mark.parametrize("output_type", ENABLED)
def test_same_bytes_twice_in_one_process(output_type):
    model = _block_model()
    first, second = _output_bytes(model, output_type), _output_bytes(model, output_type)
    assert first[0] == second[0], "text differs"
    assert first[1] == second[1], "bytecode differs"
    assert b"dense_resource" in first[0] or output_type != "torch"  # the weights are resource blobs


_CHILD = """
import hashlib, io, sys
import onnx, onnx_torch_mlir
module = onnx_torch_mlir.compile(onnx.load(sys.argv[1]), sys.argv[2], dims={"batch": 2})
stream = io.BytesIO()
module.operation.write_bytecode(stream)
print(hashlib.sha256(str(module).encode()).hexdigest(), hashlib.sha256(stream.getvalue()).hexdigest())
"""


def test_same_bytes_in_two_processes_with_different_hash_seeds(tmp_path):
    path = tmp_path / "block.onnx"
    onnx.save(_block_model(), path)
    output_type = ENABLED[-1]
    digests = []
    for seed in ("1", "2"):
        environment = dict(os.environ, PYTHONHASHSEED=seed)
        result = subprocess.run([sys.executable, "-c", _CHILD, str(path), output_type], capture_output=True,
                                text=True, env=environment, check=True)
        digests.append(result.stdout.split())
    assert digests[0] == digests[1]
    text, bytecode = _output_bytes(_block_model(), output_type)
    assert digests[0] == [hashlib.sha256(text).hexdigest(), hashlib.sha256(bytecode).hexdigest()]
