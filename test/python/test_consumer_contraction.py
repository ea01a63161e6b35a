"""Reproducer: IREE and XLA contract a float multiply and the add that reads it into one fused
multiply-add on a CPU with FMA, so a program whose every op rounds (what our output says, and what
onnxruntime and our reference runner compute) gives other numbers there.

`a*x + b*x` with a = -b = 1e20 and x = 1e10 is 0 when each product is rounded (they cancel
exactly) and about 5e21 when one product is kept unrounded inside an FMA: the error of rounding
the other. IREE adds LLVM's `contract` flag to every float multiply and add of its CPU code
(iree-org/iree#14551, "we will add different fp modes"; IREE 3.13 has no option to leave it off);
XLA's CPU backend does the same (openxla/xla#41579, open). The wild tashkeel-bilstm-int8 file shows
it on a real model: its dynamically quantized LSTM quantizes the hidden state at run time, and one
contracted ulp rounds a value to the other integer (docs/wild.md). `stablehlo.optimization_barrier`
between the product and the add keeps IREE from contracting, not XLA.

The test asserts the consumers' present behaviour, so that a consumer that stops contracting (or
gains an option not to) fails it, and the wild blockers citing it are looked at again.
"""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from consumers import program

CONTRACTED = np.float32(4.993411e21)  # fma(1e20, 1e10, round(-1e20 * 1e10))


def _sum_of_products() -> onnx.ModelProto:
    nodes = [helper.make_node("Mul", ["a", "x"], ["ax"]), helper.make_node("Mul", ["b", "x"], ["bx"]),
             helper.make_node("Add", ["ax", "bx"], ["y"])]
    value = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [4])  # noqa: E731
    graph = helper.make_graph(nodes, "sum_of_products", [value("a"), value("b"), value("x")], [value("y")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _inputs():
    a = np.full(4, 1e20, np.float32)
    return a, -a, np.full(4, 1e10, np.float32)


def test_onnxruntime_and_the_reference_runner_round_each_product():
    model = _sum_of_products()
    inputs = _inputs()
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(session.run(None, dict(zip("abx", inputs)))[0], np.zeros(4, np.float32))
    for backend in ("linalg-on-tensors", "stablehlo"):
        module = onnx_torch_mlir.compile(model, backend)
        np.testing.assert_array_equal(program(module, backend, "reference")(*inputs)[0], np.zeros(4, np.float32))


@pytest.mark.parametrize("backend", ["linalg-on-tensors", "stablehlo"])
def test_iree_contracts_a_product_into_the_add(backend):
    module = onnx_torch_mlir.compile(_sum_of_products(), backend)
    np.testing.assert_allclose(program(module, backend, "iree")(*_inputs())[0], np.full(4, CONTRACTED), rtol=1e-6)


def test_xla_contracts_a_product_into_the_add():
    pytest.importorskip("jax", reason="XLA comes with the xla extra")
    from onnx_torch_mlir.runtime.xla import compile_with_xla

    module = onnx_torch_mlir.compile(_sum_of_products(), "stablehlo", entry_name="main", weights="inline")
    np.testing.assert_allclose(compile_with_xla(module)(*_inputs())[0], np.full(4, CONTRACTED), rtol=1e-6)
