"""import_onnx: sources, both spellings, metadata, locations, types, special forms, functions."""

import io

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from torch_mlir import ir

from onnx_torch_mlir import import_onnx
from onnx_torch_mlir.dialect.verifier import OnnxVerificationError, verify_module
from onnx_torch_mlir.importer.progress import Progress
from onnx_torch_mlir.mlir_context import make_context

from importer_models import linear_model, single_node_model


def text(module, **options) -> str:
    return module.operation.get_asm(**options)


@pytest.mark.parametrize("form", ["onnx", "torch-onnx"])
def test_path_bytes_and_proto_give_the_same_module(tmp_path, form):
    model = linear_model()
    path = tmp_path / "linear.onnx"
    onnx.save(model, str(path))
    from_path = text(import_onnx(str(path), form=form))
    assert from_path == text(import_onnx(path.read_bytes(), form=form))
    assert from_path == text(import_onnx(model, form=form))


def test_onnx_form_prints_and_reparses_to_the_same_text():
    module = import_onnx(linear_model(), form="onnx")
    printed = text(module, enable_debug_info=True)
    reparsed = ir.Module.parse(printed, make_context())
    assert text(reparsed, enable_debug_info=True) == printed
    assert '"onnx.EntryPoint"() {func = @main_graph}' in printed
    assert '{onnx.name = "x"}' in printed and '{onnx.name = "y"}' in printed
    assert "onnx.opset_import = {ai.onnx = 17 : i64}" in printed


def test_torch_onnx_metadata_on_the_function():
    model = linear_model()
    model.opset_import.add(domain="com.microsoft", version=1)
    model.producer_version = "1.2"
    printed = text(import_onnx(model, form="torch-onnx"))
    for expected in (
        "torch.onnx_meta.ir_version = 10 : si64" if model.ir_version == 10 else f"torch.onnx_meta.ir_version = {model.ir_version} : si64",
        "torch.onnx_meta.opset_version = 17 : si64",
        'torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}',
        'torch.onnx_meta.producer_name = "tests"',
        'torch.onnx_meta.producer_version = "1.2"',
    ):
        assert expected in printed


def test_every_op_is_located_at_its_node_in_the_file(tmp_path):
    path = tmp_path / "linear.onnx"
    onnx.save(linear_model(), str(path))
    module = import_onnx(str(path), form="torch-onnx")
    function = module.body.operations[0]
    locations = [str(op.location) for op in function.regions[0].blocks[0].operations]
    file_location = f'"{path}":0:0'
    assert all(file_location in location for location in locations)
    assert any(f'loc("gemm"({file_location}))' == location for location in locations)
    assert any(f'loc("big"({file_location}))' == location for location in locations)


def test_compile_through_torch_mlir_to_linalg_with_our_importer():
    from onnx_torch_mlir import compile

    module = compile(linear_model(), "linalg-on-tensors", importer="ours", converter="torch-mlir")
    printed = text(module)
    assert "linalg.matmul" in printed or "linalg.generic" in printed
    assert "torch.operator" not in printed


def test_context_is_optional_and_can_be_given():
    context = make_context()
    module = import_onnx(linear_model(), context=context)
    assert module.context is context


@pytest.mark.parametrize(
    "data_type,values,spelling",
    [
        (TensorProto.INT4, [-8, -1, 0, 7, 3], "si4"),
        (TensorProto.UINT4, [0, 15, 3, 9, 1], "ui4"),
        # The Torch dialect has no 2-bit dtype: the values are held exactly in 8 bits.
        (TensorProto.INT2, [-2, -1, 0, 1, 1], "si8"),
        (TensorProto.UINT2, [0, 1, 2, 3, 2], "ui8"),
        (TensorProto.FLOAT4E2M1, [0.5, 1.0, -6.0, 0.0, 3.0], "f4E2M1FN"),
        (TensorProto.FLOAT8E8M0, [1.0, 2.0, 0.5, 4.0, 8.0], "f8E8M0FNU"),
    ],
)
def test_element_types_torch_mlir_rejects_are_imported(data_type, values, spelling):
    tensor = helper.make_tensor("c", data_type, [5], values)
    node = helper.make_node("Identity", ["c"], ["y"], name="id")
    y = helper.make_tensor_value_info("y", data_type, [5])
    # The first opset whose Identity takes the type (the importer checks nodes against their schema).
    opset = {TensorProto.INT2: 25, TensorProto.UINT2: 25, TensorProto.FLOAT8E8M0: 24}.get(data_type, 23)
    model = single_node_model(node, [], [y], [tensor], opset=opset)
    printed = text(import_onnx(model, form="torch-onnx"))
    assert f"!torch.vtensor<[5],{spelling}>" in printed
    if spelling.startswith(("si", "ui")):
        assert f"dense<[{', '.join(str(v) for v in values)}]> : tensor<5x{spelling}>" in printed


def test_sub_byte_raw_data_is_unpacked_low_bits_first():
    tensor = helper.make_tensor("c", TensorProto.INT4, [3], bytes([0xF1, 0x07]), raw=True)
    y = helper.make_tensor_value_info("y", TensorProto.INT4, [3])
    model = single_node_model(helper.make_node("Identity", ["c"], ["y"]), [], [y], [tensor], opset=21)
    printed = text(import_onnx(model, form="onnx"))
    assert "dense_resource<c> : tensor<3xi4>" in printed
    assert 'c: "0x01000000' + "01FF07" in printed


def test_constant_of_shape_special_form():
    shape = numpy_helper.from_array(np.array([2, 3], dtype=np.int64), "shape")
    fill = helper.make_tensor("value", TensorProto.INT64, [1], [7])
    node = helper.make_node("ConstantOfShape", ["shape"], ["y"], value=fill)
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [2, 3])
    printed = text(import_onnx(single_node_model(node, [], [y], [shape]), form="torch-onnx"))
    assert "torch.vtensor.literal(dense<7> : tensor<2x3xsi64>) : !torch.vtensor<[2,3],si64>" in printed


def test_constant_of_shape_with_a_dynamic_shape_stays_an_operator():
    shape = helper.make_tensor_value_info("shape", TensorProto.INT64, [2])
    node = helper.make_node("ConstantOfShape", ["shape"], ["y"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    printed = text(import_onnx(single_node_model(node, [shape], [y]), form="torch-onnx"))
    assert 'torch.operator "onnx.ConstantOfShape"(%arg0)' in printed


def test_absent_optional_inputs():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    node = helper.make_node("Clip", ["x", "", ""], ["y"])
    torch_text = text(import_onnx(single_node_model(node, [x], [y]), form="torch-onnx"))
    assert torch_text.count("torch.constant.none") == 1
    assert 'torch.operator "onnx.Clip"(%arg0, %none, %none)' in torch_text
    onnx_text = text(import_onnx(single_node_model(node, [x], [y]), form="onnx"))
    assert '"onnx.NoValue"() {value} : () -> none' in onnx_text


def test_other_domains_are_kept_apart():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    node = helper.make_node("Gelu", ["x"], ["y"], domain="com.microsoft", name="gelu")
    model = single_node_model(node, [x], [y], domains=["com.microsoft"])
    assert 'torch.operator "com.microsoft.Gelu"' in text(import_onnx(model, form="torch-onnx"))
    onnx_text = text(import_onnx(model, form="onnx"))
    assert '"onnx.Custom"(%arg0) {domain_name = "com.microsoft", function_name = "Gelu", onnx_node_name = "gelu"}' in onnx_text


def test_model_local_functions_are_inlined():
    function = helper.make_function(
        "local", "DoubleRelu", ["a"], ["b"],
        [helper.make_node("Relu", ["a"], ["t"]), helper.make_node("Add", ["t", "t"], ["b"])],
        [helper.make_opsetid("", 17)],
    )
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph([helper.make_node("DoubleRelu", ["x"], ["y"], domain="local")], "g", [x], [y])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)], functions=[function]
    )
    printed = text(import_onnx(model, form="torch-onnx"))
    assert '"onnx.Relu"' in printed and '"onnx.Add"' in printed and "DoubleRelu" not in printed


def test_function_ops_expansion_is_selectable():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4, 4])
    model = single_node_model(helper.make_node("MeanVarianceNormalization", ["x"], ["y"]), [x], [y], opset=18)
    expanded = text(import_onnx(model))
    assert "MeanVarianceNormalization" not in expanded and '"onnx.ReduceMean"' in expanded
    kept = text(import_onnx(model, expand_ops=frozenset()))
    assert 'torch.operator "onnx.MeanVarianceNormalization"' in kept
    softsign = single_node_model(helper.make_node("Softsign", ["x"], ["y"]), [x], [y], opset=18)
    assert '"onnx.Softsign"' not in text(import_onnx(softsign, expand_ops="all"))


def test_subgraphs_are_regions_in_both_forms():
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    branch_out = helper.make_tensor_value_info("r", TensorProto.FLOAT, [2])
    then_graph = helper.make_graph([helper.make_node("Relu", ["x"], ["r"])], "then", [], [branch_out])
    else_graph = helper.make_graph([helper.make_node("Neg", ["x"], ["r"])], "else", [], [branch_out])
    node = helper.make_node("If", ["cond"], ["y"], then_branch=then_graph, else_branch=else_graph, name="choose")
    model = single_node_model(node, [cond, x], [y])
    torch_text = text(import_onnx(model, form="torch-onnx"))
    # torch-mlir's order: regions sorted by attribute name (else_branch first).
    assert torch_text.index('"onnx.Neg"') < torch_text.index('"onnx.Relu"')
    assert torch_text.count("torch.operator_terminator") == 2
    onnx_text = text(import_onnx(model, form="onnx"))
    assert onnx_text.index('"onnx.Relu"') < onnx_text.index('"onnx.Neg"')
    assert onnx_text.count('"onnx.Yield"') == 2


def test_verifier_names_the_op_and_the_problem():
    source = """
    module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
      func.func @main_graph(%a: tensor<2xf32>) -> tensor<2xf32> {
        %0 = "onnx.Relu"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("relu0")
        %1 = "onnx.Gemm"(%a, %a) {bogus = 1 : si64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("gemm0")
        return %0 : tensor<2xf32>
      }
    }"""
    module = ir.Module.parse(source, make_context())
    with pytest.raises(OnnxVerificationError, match=r'loc\("relu0"\): \'onnx.Relu\': 2 operands, the schema \(opset 14\) allows 1 to 1'):
        verify_module(module, "m.onnx")
    module = ir.Module.parse(source.replace("(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(\"relu0\")", "(%a) : (tensor<2xf32>) -> tensor<2xf32> loc(\"relu0\")"), make_context())
    with pytest.raises(OnnxVerificationError, match=r"'onnx.Gemm': unknown attribute\(s\) bogus"):
        verify_module(module)


def test_progress_is_shown_on_a_terminal_only():
    stream = io.StringIO()
    quiet = Progress(10, "importing m.onnx", stream=stream)
    quiet.advance(10)
    quiet.finish()
    assert stream.getvalue() == ""
    shown = Progress(10, "importing m.onnx", stream=stream, enabled=True)
    shown.started -= 5
    shown.last_shown -= 5
    shown.advance(10)
    shown.finish()
    assert "importing m.onnx: 10/10 nodes" in stream.getvalue()


def local_function_model():
    function = helper.make_function(
        "local", "ScaledRelu", ["a"], ["b"],
        [helper.make_node("Relu", ["a"], ["t"]),
         helper.make_node("Constant", [], ["s"], value_float=0.0),
         helper.make_node("Mul", ["t", "s"], ["b"])],
        [helper.make_opsetid("", 17)],
        attributes=["scale"],
    )
    function.node[1].attribute[0].ref_attr_name = "scale"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [4])
    nodes = [
        helper.make_node("ScaledRelu", ["x"], ["m"], domain="local", scale=2.0),
        helper.make_node("ScaledRelu", ["m"], ["y"], domain="local", scale=2.0),
        helper.make_node("ScaledRelu", ["x"], ["z"], domain="local", scale=3.0),
    ]
    return helper.make_model(
        helper.make_graph(nodes, "g", [x], [y, z]),
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
        functions=[function],
    )


@pytest.mark.parametrize("form", ["torch-onnx", "onnx"])
def test_model_local_functions_can_be_kept_as_functions(form):
    printed = text(import_onnx(local_function_model(), form=form, functions="call"))
    # One private function per signature (the scale attribute is part of it), called twice and once.
    assert printed.count("func.func private @local.ScaledRelu") == 2
    assert printed.count("call @local.ScaledRelu(") == 2 and printed.count("call @local.ScaledRelu_1(") == 1
    assert "2.000000e+00" in printed and "3.000000e+00" in printed


def test_local_functions_called_compile_through_torch_mlir():
    from onnx_torch_mlir.peers import convert_with_torch_mlir

    module = import_onnx(local_function_model(), functions="call")
    convert_with_torch_mlir(module)
    assert "torch.aten.relu" in text(module) and "func.call" not in text(module)


def test_verifier_checks_types_against_the_schema():
    source = """
    module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
      func.func @main_graph(%a: tensor<2xi32>, %b: tensor<2xf32>) -> tensor<2xf32> {
        %0 = "onnx.Gather"(%b, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("gather0")
        return %0 : tensor<2xf32>
      }
    }"""
    module = ir.Module.parse(source, make_context())
    with pytest.raises(OnnxVerificationError, match=r"'onnx.Gather': operand 1 \('indices'\) is tensor\(float\), the schema allows tensor\(int32\), tensor\(int64\)"):
        verify_module(module)
