"""Declared types that contradict ONNX's inference are refused before MLIR sees the model (issue 12 item 1).

Each refusal is one line naming the file, the node (name and op type), the value, the declared
type and the inferred type; the command line exits 1 and leaves no output file. A declaration
more precise than the inference is accepted.
"""

import onnx
import pytest
from onnx import TensorProto, helper

from onnx_torch_mlir import import_onnx
from onnx_torch_mlir.errors import ImportError_, OnnxTorchMlirError
from onnx_torch_mlir.tools.main import main

OPSET = [helper.make_opsetid("", 17)]


def min_uint64(output_type: int) -> onnx.ModelProto:
    """ONNX's node case test_min_uint64 (Min of two uint64[3]) with the output's declared type edited."""
    inputs = [helper.make_tensor_value_info(name, TensorProto.UINT64, [3]) for name in ("data_0", "data_1")]
    output = helper.make_tensor_value_info("result", output_type, [3])
    node = helper.make_node("Min", ["data_0", "data_1"], ["result"], name="min")
    return helper.make_model(helper.make_graph([node], "test_min_uint64", inputs, [output]), opset_imports=OPSET)


def add_neg(value_info=(), input_shape=(3,), output_shape=(3,)) -> onnx.ModelProto:
    """out = -(x + y), with the intermediate 't' declared by `value_info`."""
    inputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, list(input_shape)) for name in ("x", "y")]
    output = helper.make_tensor_value_info("out", TensorProto.FLOAT, list(output_shape))
    nodes = [helper.make_node("Add", ["x", "y"], ["t"], name="add"), helper.make_node("Neg", ["t"], ["out"], name="neg")]
    graph = helper.make_graph(nodes, "add_neg", inputs, [output], value_info=list(value_info))
    return helper.make_model(graph, opset_imports=OPSET)


def declared_t(elem_type, shape):
    return [helper.make_tensor_value_info("t", elem_type, list(shape))]


def compile_fails(model, tmp_path, capsys) -> str:
    path = tmp_path / "model.onnx"
    path.write_bytes(model.SerializeToString())
    output = tmp_path / "out.mlir"
    status = main(["compile", str(path), "--to", "linalg-on-tensors", "-o", str(output)])
    error = capsys.readouterr().err
    assert status == 1
    assert not output.exists()
    assert [entry.name for entry in tmp_path.iterdir() if entry.name.startswith(".out.mlir")] == []
    assert error.count("\n") == 1 and error.startswith(f"onnx-torch-mlir: error: {path}: ")
    return error


@pytest.mark.parametrize(
    "declared, spelled",
    [
        (TensorProto.UINT8, "uint8[3]"),
        (TensorProto.INT8, "int8[3]"),
        (TensorProto.COMPLEX128, "complex128[3]"),
        (TensorProto.FLOAT, "float[3]"),
    ],
)
def test_graph_output_with_another_element_type(tmp_path, capsys, declared, spelled):
    error = compile_fails(min_uint64(declared), tmp_path, capsys)
    assert (
        f"node 'min' (Min): value 'result' is declared {spelled} but ONNX type inference gives uint64[3]" in error
    )


def test_unchanged_min_uint64_compiles(tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(min_uint64(TensorProto.UINT64).SerializeToString())
    output = tmp_path / "out.mlir"
    assert main(["compile", str(path), "--to", "linalg-on-tensors", "-o", str(output)]) == 0
    assert output.exists()


@pytest.mark.parametrize(
    "declared, spelled",
    [
        ((TensorProto.INT32, [3]), "int32[3]"),  # element type
        ((TensorProto.FLOAT8E4M3FN, [3]), "float8e4m3fn[3]"),  # a type we cannot represent, and wrong anyway
    ],
)
def test_intermediate_value_info_with_another_element_type(tmp_path, capsys, declared, spelled):
    error = compile_fails(add_neg(declared_t(*declared)), tmp_path, capsys)
    assert f"node 'add' (Add): value 't' is declared {spelled} but ONNX type inference gives float[3]" in error


def compile_warns(model, tmp_path, capsys) -> str:
    """Compiles (exit 0, output written) and returns stderr."""
    path = tmp_path / "model.onnx"
    path.write_bytes(model.SerializeToString())
    output = tmp_path / "out.mlir"
    assert main(["compile", str(path), "--to", "linalg-on-tensors", "-o", str(output)]) == 0
    assert output.exists()
    return capsys.readouterr().err


@pytest.mark.parametrize(
    "shape, spelled",
    [
        ([3, 1], "float[3,1]"),  # rank
        ([4], "float[4]"),  # a static dim
        ([], "float[]"),  # onnxruntime-genai declares a [1] Constant as a scalar
    ],
)
def test_intermediate_value_info_with_another_shape_is_ignored_with_a_warning(tmp_path, capsys, shape, spelled):
    """onnxruntime merges such value_info entries leniently and runs the model; so do we, saying so."""
    error = compile_warns(add_neg(declared_t(TensorProto.FLOAT, shape)), tmp_path, capsys)
    assert error == (
        f"onnx-torch-mlir: warning: {tmp_path / 'model.onnx'}: node 'add' (Add): value 't' is declared {spelled} "
        "but ONNX type inference gives float[3]; the declaration is ignored\n"
    )


def test_graph_output_with_another_shape_is_ignored_with_a_warning(tmp_path, capsys):
    """onnxruntime merges an output's shape leniently too and returns what the graph computes
    (another element type it refuses: test_graph_output_with_another_element_type)."""
    error = compile_warns(add_neg(output_shape=(4,)), tmp_path, capsys)
    assert error == (
        f"onnx-torch-mlir: warning: {tmp_path / 'model.onnx'}: node 'neg' (Neg): value 'out' is declared float[4] "
        "but ONNX type inference gives float[3]; the declaration is ignored\n"
    )


def test_python_api_raises_import_error():
    with pytest.raises(ImportError_) as caught:
        import_onnx(add_neg(declared_t(TensorProto.INT64, [3])))
    assert "node 'add' (Add): value 't' is declared int64[3] but ONNX type inference gives float[3]" in str(caught.value)


def test_unnamed_node_is_named_by_its_op_type_and_output(tmp_path, capsys):
    model = min_uint64(TensorProto.INT8)
    model.graph.node[0].name = ""
    assert "node 'Min:result' (Min): value 'result' is declared int8[3]" in compile_fails(model, tmp_path, capsys)


def test_symbolic_dims_are_named_in_the_message(tmp_path, capsys):
    model = add_neg(declared_t(TensorProto.FLOAT, ["N", 2]), input_shape=("N",), output_shape=("N",))
    error = compile_warns(model, tmp_path, capsys)
    assert "value 't' is declared float[N,2] but ONNX type inference gives float[N]; the declaration is ignored" in error


def test_static_dim_where_inference_has_a_symbol_is_accepted():
    """Released to the input's symbolic dim by shape_inference's _release_unproven_static_dims."""
    model = add_neg(declared_t(TensorProto.FLOAT, [3]), input_shape=("N",), output_shape=("N",))
    assert "!torch.vtensor<[?],f32>" in str(import_onnx(model))


def test_declaration_more_precise_than_inference_is_accepted():
    """NonZero's result count is unknown to inference; a model may declare it."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    out = helper.make_tensor_value_info("out", TensorProto.INT64, [2, 4])
    graph = helper.make_graph([helper.make_node("NonZero", ["x"], ["out"], name="nz")], "nz", [x], [out])
    module = str(import_onnx(helper.make_model(graph, opset_imports=OPSET)))
    assert "!torch.vtensor<[2,4],si64>" in module


def test_element_type_onnx_does_not_know_keeps_its_own_error():
    """An unknown element type is reported where it is, not as a mismatch downstream."""
    model = add_neg()
    model.graph.input[0].type.tensor_type.elem_type = 99
    with pytest.raises(OnnxTorchMlirError) as caught:
        import_onnx(model)
    assert "'x'" in str(caught.value) and "unknown element type 99" in str(caught.value)
    assert "declared" not in str(caught.value)


def test_string_values_fail_clearly(tmp_path, capsys):
    """Identity allows strings; strings are held as bytes only on the way to a number: the error
    names the string output."""
    error = compile_fails(single_node("Identity", [TensorProto.STRING], TensorProto.STRING), tmp_path, capsys)
    assert "graph output 'out' is a string tensor: strings are compiled as bytes only on the way to a number" in error


def test_min_of_strings_is_refused_by_its_schema(tmp_path, capsys):
    model = min_uint64(TensorProto.STRING)
    for value in list(model.graph.input):
        value.type.tensor_type.elem_type = TensorProto.STRING
    error = compile_fails(model, tmp_path, capsys)
    assert "node 'min' (Min): input 'data_0' (data_0) is tensor(string), which Min-13 does not allow" in error


def single_node(op_type, input_types, output_type) -> onnx.ModelProto:
    names = [f"x{index}" for index in range(len(input_types))]
    inputs = [helper.make_tensor_value_info(name, elem_type, [3]) for name, elem_type in zip(names, input_types)]
    output = helper.make_tensor_value_info("out", output_type, [3])
    node = helper.make_node(op_type, names, ["out"], name=op_type.lower())
    return helper.make_model(helper.make_graph([node], op_type, inputs, [output]), opset_imports=OPSET)


def test_input_type_the_schema_does_not_allow(tmp_path, capsys):
    error = compile_fails(single_node("Relu", [TensorProto.UINT8], TensorProto.UINT8), tmp_path, capsys)
    assert "node 'relu' (Relu): input 'x0' (X) is tensor(uint8), which Relu-14 does not allow" in error
    assert "for type parameter T (allowed: tensor(float), " in error


def test_bool_sqrt_is_refused(tmp_path, capsys):
    error = compile_fails(single_node("Sqrt", [TensorProto.BOOL], TensorProto.BOOL), tmp_path, capsys)
    assert "node 'sqrt' (Sqrt): input 'x0' (X) is tensor(bool), which Sqrt-13 does not allow" in error


def test_inputs_bound_to_one_type_parameter_must_agree(tmp_path, capsys):
    model = single_node("Add", [TensorProto.FLOAT, TensorProto.INT32], TensorProto.FLOAT)
    error = compile_fails(model, tmp_path, capsys)
    assert "node 'add' (Add): inputs 'x0' and 'x1' share Add-14's type parameter T" in error
    assert "but are tensor(float) and tensor(int32)" in error


def test_variadic_inputs_must_agree(tmp_path, capsys):
    model = single_node("Max", [TensorProto.FLOAT, TensorProto.FLOAT, TensorProto.DOUBLE], TensorProto.FLOAT)
    error = compile_fails(model, tmp_path, capsys)
    assert "node 'max' (Max): inputs 'x0' and 'x2' share Max-13's type parameter T" in error


def test_an_initializer_is_checked_as_an_input(tmp_path, capsys):
    model = single_node("Add", [TensorProto.FLOAT], TensorProto.FLOAT)
    model.graph.node[0].input.append("w")
    model.graph.initializer.append(helper.make_tensor("w", TensorProto.INT64, [3], [1, 2, 3]))
    error = compile_fails(model, tmp_path, capsys)
    assert "inputs 'x0' and 'w' share Add-14's type parameter T but are tensor(float) and tensor(int64)" in error


def test_valid_mixed_type_parameters_are_accepted():
    """Pow's base and exponent are separate type parameters; float ** int32 is valid."""
    module = str(import_onnx(single_node("Pow", [TensorProto.FLOAT, TensorProto.INT32], TensorProto.FLOAT)))
    assert "onnx.Pow" in module


def test_ignored_declaration_leaves_the_users_model_unchanged():
    model = add_neg(declared_t(TensorProto.FLOAT, [4]))
    before = model.SerializeToString()
    with pytest.warns(UserWarning, match="the declaration is ignored"):
        import_onnx(model)
    assert model.SerializeToString() == before


def test_split_with_more_num_outputs_than_outputs(tmp_path, capsys):
    """ONNX's C++ shape inference aborts the process on this (found by the fuzzer)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [3]) for name in ("a", "b")]
    node = helper.make_node("Split", ["x"], ["a", "b"], name="split", axis=0, num_outputs=3)
    model = helper.make_model(helper.make_graph([node], "split", [x], outputs), opset_imports=[helper.make_opsetid("", 18)])
    error = compile_fails(model, tmp_path, capsys)
    assert "node 'split' (Split): attribute 'num_outputs' is 3 but the node has 2 outputs" in error
