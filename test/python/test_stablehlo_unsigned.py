"""Unsigned weights on StableHLO (transforms/stablehlo/unsigned.py): neither consumer lowers a
`stablehlo.constant` of an unsigned type held in a resource, so each becomes a signless constant
of the same bytes and a `stablehlo.bitcast_convert`. A uint8 table gathered and cast to float must come out with
its values (252 stays 252) on the reference runner and on IREE."""

import re

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

INDICES = np.array([9, 0, 5], dtype=np.int64)


def gather_table(table: np.ndarray, as_typed_fields: bool):
    initializer = numpy_helper.from_array(table, "table")
    if as_typed_fields:  # a proto's int32_data instead of raw bytes: imported as dense values, not a resource
        initializer = helper.make_tensor("table", TensorProto.UINT8, table.shape, table.reshape(-1).tolist())
    nodes = [helper.make_node("Gather", ["table", "i"], ["g"]), helper.make_node("Cast", ["g"], ["y"], to=TensorProto.FLOAT)]
    graph = helper.make_graph(
        nodes, "gather_table", [helper.make_tensor_value_info("i", TensorProto.INT64, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, table.shape[1]])], initializer=[initializer],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("as_typed_fields", [False, True], ids=["resource", "dense"])
def test_uint8_table_keeps_its_values_on_both_consumers(as_typed_fields):
    table = (np.arange(40) * 7 % 256).astype(np.uint8).reshape(10, 4)
    module = onnx_torch_mlir.compile(gather_table(table, as_typed_fields), "stablehlo")
    text = str(module)
    assert not re.search(r"stablehlo.constant dense_resource[^\n]*xui8>", text)
    assert ("stablehlo.bitcast_convert" in text) != as_typed_fields  # literal unsigned constants lower as they are
    expected = table[INDICES].astype(np.float32)
    assert expected.max() == 252  # a value that a signed reading would turn negative
    np.testing.assert_array_equal(runtime.run(module, [INDICES], input_dialect="stablehlo")[0], expected)
    np.testing.assert_array_equal(compile_with_iree(module, "stablehlo")(INDICES)[0], expected)


def gathered_rows_reshaped_to_run_time_dims():
    """A uint8 table's rows gathered by [batch, sequence] ids of run-time sizes: the gather is
    flattened, so its result is reshaped to the run-time [batch, sequence, width] (a
    stablehlo.dynamic_reshape, then a tensor.reshape of ui8 and tensor.dim reads of it), as in a
    statically quantized BERT's uint8 embedding table."""
    table = (np.arange(40) * 7 % 256).astype(np.uint8).reshape(10, 4)
    nodes = [helper.make_node("Gather", ["table", "ids"], ["g"]), helper.make_node("Cast", ["g"], ["y"], to=TensorProto.FLOAT)]
    graph = helper.make_graph(
        nodes, "gathered_rows", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "sequence"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "sequence", 4])],
        initializer=[numpy_helper.from_array(table, "table")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), table


def test_uint8_rows_reshaped_to_run_time_dims_on_both_consumers():
    model, table = gathered_rows_reshaped_to_run_time_dims()
    module = onnx_torch_mlir.compile(model, "stablehlo")
    assert not re.search(r"tensor\.(reshape|dim) %[^\n]*xui8>", str(module))
    run_on_iree = compile_with_iree(module, "stablehlo")
    for ids in (np.array([[9, 0, 5], [1, 2, 3]], np.int64), np.array([[4], [8], [9], [0]], np.int64)):
        expected = table[ids].astype(np.float32)
        np.testing.assert_array_equal(runtime.run(module, [ids], input_dialect="stablehlo")[0], expected)
        np.testing.assert_array_equal(run_on_iree(ids)[0], expected)
