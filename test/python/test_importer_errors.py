"""Every bad input of issue 3 item 8: one line naming the file (and node), exit 1, no output file."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_torch_mlir import import_onnx
from onnx_torch_mlir.errors import OnnxTorchMlirError
from onnx_torch_mlir.importer import loading
from onnx_torch_mlir.tools.main import main

from importer_models import linear_model, save_with_external_data


def import_error(path, form="torch-onnx") -> str:
    with pytest.raises(OnnxTorchMlirError) as caught:
        import_onnx(str(path), form=form)
    message = str(caught.value)
    assert "\n" not in message
    return message


def cli_fails(path, tmp_path, capsys, form="torch-onnx") -> str:
    output = tmp_path / "out.mlir"
    status = main(["import", str(path), "--form", form, "-o", str(output)])
    error = capsys.readouterr().err
    assert status == 1
    assert not output.exists()
    assert [entry.name for entry in tmp_path.iterdir() if entry.name.startswith(".out.mlir")] == []
    assert error.count("\n") == 1 and error.startswith("onnx-torch-mlir: error: ")
    return error


def write(tmp_path, model: onnx.ModelProto, name="model.onnx"):
    path = tmp_path / name
    path.write_bytes(model.SerializeToString())
    return path


def test_not_an_onnx_file(tmp_path, capsys):
    path = tmp_path / "notes.onnx"
    path.write_text("this is not a model\n")
    assert f"{path}: not an ONNX model" in import_error(path)
    assert f"{path}: not an ONNX model" in cli_fails(path, tmp_path, capsys)


def test_empty_file_has_no_graph(tmp_path, capsys):
    path = tmp_path / "empty.onnx"
    path.write_bytes(b"")
    assert f"{path}: not an ONNX model (no graph)" in cli_fails(path, tmp_path, capsys)


@pytest.mark.parametrize("small_file_bytes", [0, loading.SMALL_FILE_BYTES])
def test_truncated_protobuf(tmp_path, capsys, monkeypatch, small_file_bytes):
    monkeypatch.setattr(loading, "SMALL_FILE_BYTES", small_file_bytes)
    data = linear_model().SerializeToString()
    path = tmp_path / "truncated.onnx"
    path.write_bytes(data[: len(data) // 2])
    message = import_error(path)
    assert str(path) in message and "truncated or corrupt protobuf" in message
    cli_fails(path, tmp_path, capsys, form="onnx")


def test_missing_external_data_file(tmp_path, capsys):
    path = save_with_external_data(linear_model(), tmp_path)
    (tmp_path / "weights.bin").unlink()
    message = cli_fails(path, tmp_path, capsys)
    assert f"{path}: initializer 'big': external data file 'weights.bin' not found" in message


def test_short_external_data_file(tmp_path, capsys):
    path = save_with_external_data(linear_model(), tmp_path)
    weights = tmp_path / "weights.bin"
    weights.write_bytes(weights.read_bytes()[:100])
    message = cli_fails(path, tmp_path, capsys)
    assert "initializer 'big'" in message and "'weights.bin' is too short" in message


@pytest.mark.parametrize("location", ["../secret.bin", "/etc/passwd", "sub/../../secret.bin"])
def test_external_data_path_traversal_is_refused(tmp_path, capsys, location):
    directory = tmp_path / "model"
    directory.mkdir()
    (tmp_path / "secret.bin").write_bytes(b"\0" * 4096)
    model = linear_model()
    big = next(tensor for tensor in model.graph.initializer if tensor.name == "big")
    big.ClearField("raw_data")
    big.data_location = TensorProto.EXTERNAL
    big.external_data.add(key="location", value=location)
    path = write(directory, model)
    message = import_error(path)
    assert f"{path}: initializer 'big'" in message and "escapes the model directory (refused)" in message


def test_symlink_out_of_the_model_directory_is_refused(tmp_path):
    directory = tmp_path / "model"
    path = save_with_external_data(linear_model(), (directory.mkdir() or directory))
    outside = tmp_path / "outside.bin"
    (directory / "weights.bin").rename(outside)
    (directory / "weights.bin").symlink_to(outside)
    assert "escapes the model directory (refused)" in import_error(path)


def test_unknown_opset(tmp_path, capsys):
    path = write(tmp_path, linear_model(opset=9999))
    assert f"{path}: unknown opset 9999 for the default ONNX domain" in cli_fails(path, tmp_path, capsys)


def test_unknown_element_type_of_an_input(tmp_path, capsys):
    model = linear_model()
    model.graph.input[0].type.tensor_type.elem_type = 99
    path = write(tmp_path, model)
    message = cli_fails(path, tmp_path, capsys)
    assert str(path) in message and "'x'" in message and "unknown element type 99" in message


def test_unknown_element_type_of_an_initializer(tmp_path):
    model = linear_model()
    model.graph.initializer[0].data_type = 77
    message = import_error(write(tmp_path, model))
    assert "initializer 'w'" in message and "element type 77" in message


def test_cycle_names_the_nodes(tmp_path, capsys):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    nodes = [
        helper.make_node("Add", ["x", "b"], ["a"], name="first"),
        helper.make_node("Relu", ["a"], ["b"], name="second"),
        helper.make_node("Identity", ["a"], ["y"], name="out"),
    ]
    model = helper.make_model(helper.make_graph(nodes, "cyclic", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    path = write(tmp_path, model)
    message = cli_fails(path, tmp_path, capsys)
    assert f"{path}: the graph has a cycle through node(s) 'first', 'second'" in message


def test_undefined_input_names_node_and_value(tmp_path, capsys):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    node = helper.make_node("Add", ["x", "nowhere"], ["y"], name="adder")
    model = helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    path = write(tmp_path, model)
    message = cli_fails(path, tmp_path, capsys, form="onnx")
    assert f"{path}: node 'adder' (Add): input 'nowhere' is not defined" in message


def test_unsorted_graph_is_sorted_not_refused(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    nodes = [helper.make_node("Relu", ["a"], ["y"], name="late"), helper.make_node("Neg", ["x"], ["a"], name="early")]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    text = str(import_onnx(str(write(tmp_path, model))))
    assert text.index('"onnx.Neg"') < text.index('"onnx.Relu"')


def test_untyped_used_value_names_value_and_producer(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    nodes = [
        helper.make_node("Mystery", ["x"], ["m"], name="mystery", domain="example.org"),
        helper.make_node("Relu", ["m"], ["y"], name="relu"),
    ]
    model = helper.make_model(
        helper.make_graph(nodes, "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("example.org", 1)],
    )
    message = import_error(write(tmp_path, model))
    assert "node 'mystery' (Mystery): the type of result 'm' is unknown" in message


def test_raw_data_of_the_wrong_size(tmp_path):
    model = linear_model()
    tensor = numpy_helper.from_array(np.zeros(4, dtype=np.float32), "w")
    tensor.raw_data = tensor.raw_data[:10]
    model.graph.initializer[0].CopyFrom(tensor)
    model.graph.initializer[0].dims[:] = [1, 3]
    message = import_error(write(tmp_path, model))
    assert "initializer 'w'" in message and "10 bytes of data for 3 elements of FLOAT" in message


@pytest.mark.parametrize("element,low,high", [(TensorProto.INT2, -2, 1), (TensorProto.UINT2, 0, 3)])
def test_quantize_to_two_bits_keeps_the_two_bit_range(tmp_path, element, low, high):
    """The torch-ONNX form holds 2-bit integers in 8 bits, and QuantizeLinear takes its result type
    from the zero point; the importer names the type in `output_dtype` (a copy of the node), so the
    conversion saturates at 2 bits, not at 8. The ONNX dialect keeps i2/ui2."""
    import onnx_torch_mlir
    from onnx_torch_mlir.runtime import compile_for_cpu

    node = helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["y"], name="quantize")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", element, [4])],
        [helper.make_tensor("scale", TensorProto.FLOAT, [], [0.5]), helper.make_tensor("zero", element, [], [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    path = write(tmp_path, model)
    before = path.read_bytes()
    (result,) = compile_for_cpu(onnx_torch_mlir.compile(str(path), output_type="linalg-on-tensors"))(
        np.array([-10.0, -0.6, 0.4, 10.0], np.float32))
    assert result.tolist() == [low, max(low, 0), min(high, 2), high]  # round(x / 0.5) + 1, saturated
    assert path.read_bytes() == before  # the user's model is untouched
    assert f"tensor<4x{'ui2' if element == TensorProto.UINT2 else 'i2'}>" in str(import_onnx(str(path), form="onnx"))
