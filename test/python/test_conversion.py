"""The conversion framework: registry, version lookup, API, diagnostics."""

import onnx
import onnx.defs
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from onnx_torch_mlir.conversion.onnx_to_torch import all_registrations, lookup
from onnx_torch_mlir.conversion.onnx_to_torch.registry import converts, display_domain
from onnx_torch_mlir.errors import ConversionError


def _onnxruntime_since_versions(domain: str, op_type: str) -> set[int]:
    """The since_versions onnxruntime's own schemas give an op ONNX has no schema for
    (com.microsoft ops, and onnxruntime's default-domain LayerNormalization-1)."""
    from onnxruntime.capi.onnxruntime_pybind11_state import get_all_operator_schema

    return {schema.since_version for schema in get_all_operator_schema()
            if schema.name == op_type and (schema.domain or "") == domain}


def test_every_registration_is_a_real_since_version():
    for registration in all_registrations():
        domain = registration.domain
        if onnx.defs.has(registration.op_type, registration.since_version, domain):
            since = onnx.defs.get_schema(registration.op_type, registration.since_version, domain).since_version
            assert since == registration.since_version, (
                f"{registration.op_type} registered since {registration.since_version} in {registration.module}, "
                f"but ONNX's version in force there is {since}"
            )
        else:
            assert registration.since_version in _onnxruntime_since_versions(domain, registration.op_type), (
                f"{registration.op_type} (domain '{domain}') registered since {registration.since_version} in "
                f"{registration.module} is in neither ONNX's nor onnxruntime's schemas"
            )


def test_lookup_takes_newest_not_above_opset():
    assert lookup("", "Add", 6).since_version == 1
    assert lookup("", "Add", 7).since_version == 7
    assert lookup("ai.onnx", "Add", 21).since_version == 7
    assert lookup("", "Round", 10) is None
    assert lookup("com.example", "Add", 21) is None


def test_duplicate_registration_is_an_error():
    with pytest.raises(ValueError, match="already registered"):
        converts("Add", since=7)(lambda node, b: None)


def test_display_domain():
    assert display_domain("") == "ai.onnx"
    assert display_domain("com.microsoft") == "com.microsoft"


def _model(nodes, inputs, outputs, opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _float(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def test_compile_with_our_converter_reaches_backend_contract():
    model = _model(
        [helper.make_node("Add", ["a", "b"], ["c"]), helper.make_node("Exp", ["c"], ["d"])],
        [_float("a", ["N", 3]), _float("b", [3])],
        [_float("d", ["N", 3])],
    )
    module = onnx_torch_mlir.compile(model, "torch")
    text = str(module)
    assert "torch.aten.add.Tensor" in text and "torch.aten.exp" in text
    assert "torch.operator" not in text
    linalg = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert "linalg.generic" in str(linalg)


def test_all_failures_are_reported_at_once():
    model = _model(
        [
            helper.make_node("Frobnicate", ["a"], ["b"], name="first", domain="com.example"),
            helper.make_node("Add", ["a", "b"], ["c"], name="ok"),
            helper.make_node("Frobnicate", ["c"], ["d"], name="second", domain="com.example"),
        ],
        [_float("a", [3])],
        [_float("d", [3])],
    )
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    model.graph.value_info.extend([_float("b", [3]), _float("c", [3])])
    with pytest.raises(ConversionError) as error:
        onnx_torch_mlir.compile(model, "torch")
    message = str(error.value)
    assert "node 'first' (Frobnicate" in message
    assert "node 'second' (Frobnicate" in message
    assert "failed to legalize" not in message
