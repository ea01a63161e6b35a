"""The direct route to torch-mlir's backend contract (conversion/passes.py).

A module whose types our conversion made fully static skips torch-mlir's shape and dtype
simplification (reify, inline, simplify, iterate) and gets only its decompositions; anything
else, or a result that is not the contract with static types, takes the full simplification.
The two routes must give the same program.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from torch_mlir import ir

import onnx_torch_mlir
from onnx_torch_mlir.conversion import passes
from onnx_torch_mlir.mlir_context import make_context
from consumers import program
from onnxruntime_reference import assert_matches, expected

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")

STATIC_SOFTMAX = """
func.func @main(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %0 = torch.aten.softmax.int %arg0, %int1, %none : !torch.vtensor<[2,3],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
"""

# Concat's operand list leaves its element type open; its elements are static values.
STATIC_CAT = """
func.func @main(%arg0: !torch.vtensor<[2,1,4],f32>, %arg1: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,4,4],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.prim.ListConstruct %arg0, %arg1 : (!torch.vtensor<[2,1,4],f32>, !torch.vtensor<[2,3,4],f32>) -> !torch.list<vtensor>
  %1 = torch.aten.cat %0, %int1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,4,4],f32>
  return %1 : !torch.vtensor<[2,4,4],f32>
}
"""

# Modules the direct route must leave to the full simplification, untouched.
NOT_DIRECT = {
    "unknown size": """
func.func @main(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[?,3],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[?,3],f32>
  return %0 : !torch.vtensor<[?,3],f32>
}
""",
    "unknown dtype": """
func.func @main(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],unk> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],unk>
  return %0 : !torch.vtensor<[2,3],unk>
}
""",
    "tuple result": """
func.func @main(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.tuple<vtensor<[2,3],f32>, vtensor<[2,3],f32>> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>
  %1 = torch.prim.TupleConstruct %0, %0 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32> -> !torch.tuple<vtensor<[2,3],f32>, vtensor<[2,3],f32>>
  return %1 : !torch.tuple<vtensor<[2,3],f32>, vtensor<[2,3],f32>>
}
""",
    "call": """
func.func private @inner(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
func.func @main(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %0 = func.call @inner(%arg0) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
""",
}


def test_static_module_reaches_the_contract_directly():
    module = ir.Module.parse(STATIC_SOFTMAX, make_context())
    assert passes.is_static_single_function(module)
    assert passes.reaches_contract_directly(module)
    text = str(module)
    assert "aten.softmax" not in text  # decomposed, as the full simplification does
    assert "torch.aten.exp" in text


def test_concat_of_static_tensors_reaches_the_contract_directly():
    module = ir.Module.parse(STATIC_CAT, make_context())
    assert passes.reaches_contract_directly(module)
    assert "torch.aten.cat" in str(module)


@pytest.mark.parametrize("name", sorted(NOT_DIRECT))
def test_module_the_direct_route_cannot_take_is_left_untouched(name):
    module = ir.Module.parse(NOT_DIRECT[name], make_context())
    before = str(module)
    assert not passes.is_static_single_function(module)
    assert not passes.reaches_contract_directly(module)
    assert str(module) == before


def test_full_route_still_refines_what_the_direct_route_refuses():
    module = ir.Module.parse(NOT_DIRECT["unknown size"], make_context())
    assert not passes.reaches_contract_directly(module)
    passes.run_pipeline(module, [passes.backend_contract_pipeline()], stage="torch backend contract")
    assert "!torch.vtensor<[2,3],f32>" in str(module) and "?" not in str(module)


def _encoder_block(batch) -> onnx.ModelProto:
    """MatMul, LayerNormalization, Gelu (erf form), Softmax: ops torch-mlir decomposes."""
    rng = np.random.default_rng(0)
    weights = [
        numpy_helper.from_array(rng.standard_normal((8, 8)).astype(np.float32) / 3, "w"),
        numpy_helper.from_array(np.ones(8, np.float32), "scale"),
        numpy_helper.from_array(np.zeros(8, np.float32), "bias"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("LayerNormalization", ["m", "scale", "bias"], ["n"], axis=-1),
        helper.make_node("Gelu", ["n"], ["g"]),
        helper.make_node("Softmax", ["g"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 4, 8])], weights,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=9)


def _compile_recording_route(model, backend, monkeypatch, allow_direct: bool):
    taken = []
    original = passes.reaches_contract_directly

    def route(module, backend_legal_ops=()):
        taken.append(allow_direct and original(module, backend_legal_ops))
        return taken[-1]

    monkeypatch.setattr(passes, "reaches_contract_directly", route)
    module = onnx_torch_mlir.compile(model, backend)
    return module, taken


@pytest.mark.parametrize("backend", BACKENDS)
def test_both_routes_compile_the_same_program(backend, monkeypatch):
    model = _encoder_block(2)
    direct, taken = _compile_recording_route(model, backend, monkeypatch, allow_direct=True)
    assert taken == [True]
    full, taken = _compile_recording_route(model, backend, monkeypatch, allow_direct=False)
    assert taken == [False]
    assert str(direct) == str(full)
    x = np.random.default_rng(1).standard_normal((2, 4, 8)).astype(np.float32)
    assert_matches(program(direct, backend, "reference")(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


def test_dynamic_model_takes_the_full_route(monkeypatch):
    model = _encoder_block("batch")
    module, taken = _compile_recording_route(model, "linalg-on-tensors", monkeypatch, allow_direct=True)
    assert taken == [False]
    x = np.random.default_rng(1).standard_normal((3, 4, 8)).astype(np.float32)
    assert_matches(program(module, "linalg-on-tensors", "reference")(x), expected(model, [x]), rtol=1e-4, atol=1e-5)
