"""Every model shipped in the onnx wheel imports in both spellings; the ONNX dialect verifies and round-trips."""

from pathlib import Path

import onnx
import pytest
from torch_mlir import ir

from onnx_torch_mlir import import_onnx
from onnx_torch_mlir.errors import OnnxTorchMlirError
from onnx_torch_mlir.mlir_context import make_context

DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"
MODELS = sorted(DATA.glob("*/*/model.onnx")) + sorted(DATA.glob("light/*.onnx"))
# String tensors have no torch-ONNX form (torch-mlir's importer does not map them either); held as bytes,
# they reach no string output nor StringNormalizer's stopwords (importer/string_bytes.py).
STRING_MODELS = {"test_strnorm_model_monday_casesensintive_lower", "test_strnorm_model_monday_casesensintive_nochangecase",
                 "test_strnorm_model_monday_casesensintive_upper", "test_strnorm_model_monday_empty_output",
                 "test_strnorm_model_monday_insensintive_upper_twodim", "test_strnorm_model_nostopwords_nochangecase"}


def model_id(path: Path) -> str:
    return path.stem if path.parent.parent.name == "data" else path.parent.name


@pytest.mark.parametrize("path", MODELS, ids=model_id)
def test_wheel_model_imports_in_both_spellings(path):
    onnx_text = import_onnx(str(path), form="onnx").operation.get_asm(enable_debug_info=True)
    reparsed = ir.Module.parse(onnx_text, make_context()).operation.get_asm(enable_debug_info=True)
    assert reparsed == onnx_text
    if model_id(path) in STRING_MODELS:
        with pytest.raises(OnnxTorchMlirError, match="stopwords remove strings|is a string tensor: strings are "
                           "compiled as bytes only on the way to a number"):
            import_onnx(str(path), form="torch-onnx")
        return
    torch_module = import_onnx(str(path), form="torch-onnx")
    assert torch_module.operation.verify()
    assert "torch.onnx_meta.opset_version" in torch_module.body.operations[0].attributes


def test_the_wheel_has_models():
    assert len(MODELS) > 100
