"""Weights without copies: resources on the mapped file, external data mapped, bytecode output."""

import subprocess
import sys
import textwrap

import numpy as np
import onnx
from onnx import numpy_helper
from torch_mlir import ir

from onnx_torch_mlir import import_onnx
from onnx_torch_mlir.importer import loading
from onnx_torch_mlir.importer.loading import open_model
from onnx_torch_mlir.mlir_context import make_context
from onnx_torch_mlir.tools.main import main

from importer_models import linear_model, save_with_external_data


def resource_hex(array: np.ndarray) -> str:
    """How MLIR prints a resource blob: a 4-byte little-endian alignment, then the bytes."""
    alignment = array.dtype.itemsize
    return "0x" + (alignment.to_bytes(4, "little") + array.tobytes()).hex().upper()


def test_large_payloads_are_left_in_the_mapped_file(tmp_path, monkeypatch):
    monkeypatch.setattr(loading, "SMALL_FILE_BYTES", 0)
    path = tmp_path / "linear.onnx"
    onnx.save(linear_model(), str(path))
    opened = open_model(str(path))
    big = next(tensor for tensor in opened.proto.graph.initializer if tensor.name == "big")
    assert not big.HasField("raw_data")  # the protobuf never held the payload
    offset, length = opened.weights.payloads["big"]
    assert path.read_bytes()[offset : offset + length] == np.arange(900, dtype=np.float32).tobytes()
    small = next(tensor for tensor in opened.proto.graph.initializer if tensor.name == "w")
    assert small.HasField("raw_data")  # small ones stay for shape inference


def test_resource_bytes_are_the_weights(tmp_path, monkeypatch):
    monkeypatch.setattr(loading, "SMALL_FILE_BYTES", 0)
    path = tmp_path / "linear.onnx"
    onnx.save(linear_model(), str(path))
    printed = str(import_onnx(str(path), form="onnx"))
    assert f'big: "{resource_hex(np.arange(900, dtype=np.float32))}"' in printed


def test_external_data_imports_and_matches(tmp_path):
    path = save_with_external_data(linear_model(), tmp_path)
    module = import_onnx(str(path), form="torch-onnx")
    assert f'big: "{resource_hex(np.arange(900, dtype=np.float32))}"' in str(module)


def test_external_data_of_a_proto_needs_base_dir(tmp_path):
    path = save_with_external_data(linear_model(), tmp_path)
    proto = onnx.load(str(path), load_external_data=False)
    module = import_onnx(proto, base_dir=tmp_path)
    assert "dense_resource<big>" in str(module)


def test_bytecode_output_round_trips(tmp_path, capsys):
    path = save_with_external_data(linear_model(), tmp_path)
    output = tmp_path / "linear.mlirbc"
    assert main(["import", str(path), "--emit-bytecode", "-o", str(output)]) == 0
    assert output.read_bytes()[:4] == b"ML\xefR"
    module = ir.Module.parse(output.read_bytes(), make_context())
    assert str(module) == str(import_onnx(str(path)))


def test_import_does_not_read_the_weights_into_memory(tmp_path):
    """Peak RSS grows by far less than the weights (64 MiB) when importing, embedded or external."""
    weights = numpy_helper.from_array(np.ones((4096, 4096), dtype=np.float32), "big")
    model = linear_model()
    model.graph.initializer[1].CopyFrom(weights)
    model.graph.input[0].type.tensor_type.shape.dim[1].dim_value = 4096
    model.graph.initializer[0].CopyFrom(numpy_helper.from_array(np.zeros((1, 4096), dtype=np.float32), "w"))
    embedded = tmp_path / "embedded.onnx"
    onnx.save(model, str(embedded))
    external_dir = tmp_path / "external"
    external_dir.mkdir()
    external = save_with_external_data(model, external_dir)
    del model, weights
    script = textwrap.dedent(
        """
        import resource, sys
        from onnx_torch_mlir import import_onnx
        import_onnx(sys.argv[1], progress=False)  # warm up: libraries, schemas
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        module = import_onnx(sys.argv[2], progress=False)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print((after - before) // 1024)
        """
    )
    small = tmp_path / "small.onnx"
    onnx.save(linear_model(), str(small))
    for path in (embedded, external):
        grown_mib = int(subprocess.check_output([sys.executable, "-c", script, str(small), str(path)]).strip())
        assert grown_mib < 16, f"{path.name}: peak memory grew by {grown_mib} MiB for 64 MiB of weights"
