"""Float-to-int64 casts on TOSA in a form TOSA's profiles take (transforms/tosa/exact_casts.py), with
the answers of the direct `tosa.cast`, which no profile takes, on every value class."""

import numpy as np
import pytest
from torch_mlir import ir
from torch_mlir.passmanager import PassManager

import onnx_torch_mlir.conversion  # noqa: F401 - the transforms package imports the conversion first
from onnx_torch_mlir.mlir_context import make_context
from onnx_torch_mlir.runtime import compile_for_cpu
from onnx_torch_mlir.transforms.tosa.exact_casts import exact_casts_between_floats_and_int64

_CAST = """func.func @main(%x: tensor<{n}x{element}>) -> tensor<{n}xi64> {{
  %0 = tosa.cast %x : (tensor<{n}x{element}>) -> tensor<{n}xi64>
  return %0 : tensor<{n}xi64>
}}"""

_VALUES = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7, -3.7, 1e-3, 65504.0, -65504.0,
           2.0**31 - 128, -(2.0**31), 2.0**31, -(2.0**31) - 256, 2.0**32, 2.0**40 + 2.0**17, -(2.0**62),
           2.0**62 + 2.0**39, -(2.0**63), 2.0**63, 1e30, -1e30, np.inf, -np.inf]
_TARGET = ("tosa-attach-target{specification_version=1.1.draft profiles=pro_int,pro_fp extensions=int64,bf16 "
           "level=none},tosa-validate{strict-op-spec-alignment}")


def _run(element: str, x: np.ndarray, rewrite: bool, consumer: str = "reference") -> np.ndarray:
    with make_context():
        module = ir.Module.parse(_CAST.format(n=len(x), element=element))
        if rewrite:
            assert exact_casts_between_floats_and_int64(module) == 1
            PassManager.parse(f"builtin.module({_TARGET})").run(module.operation)  # raises if not valid
        if consumer == "iree":
            from onnx_torch_mlir.runtime.iree import compile_with_iree

            (result,) = compile_with_iree(module, "tosa")(x)
        else:
            (result,) = compile_for_cpu(module, input_dialect="tosa")(x)
    return np.asarray(result)


@pytest.mark.parametrize("element, dtype", [("f32", np.float32), ("f16", np.float16), ("bf16", None)])
def test_same_answers_as_the_direct_cast(element, dtype):
    if dtype is None:
        import ml_dtypes

        dtype = ml_dtypes.bfloat16
    with np.errstate(over="ignore"):
        x = np.array(_VALUES, dtype)
    expected = _run(element, x, rewrite=False)
    assert _run(element, x, rewrite=True).tolist() == expected.tolist()
    in_range = np.abs(x.astype(np.float64)) < 2.0**63
    assert expected[in_range].tolist() == np.rint(x[in_range].astype(np.float64)).astype(np.int64).tolist()


def test_iree_runs_the_rewritten_casts():
    """IREE, the consumer our TOSA is for, compiles the form and gives the runner's answers."""
    x = np.array([v for v in _VALUES if abs(v) < 2.0**63], np.float32)
    assert _run("f32", x, rewrite=True, consumer="iree").tolist() == _run("f32", x, rewrite=True).tolist()


def test_nan_saturates_as_an_f32_nan_does():
    """ONNX leaves a NaN cast to an integer undefined; the rewrite gives INT64_MAX like the direct f32 cast."""
    x = np.array([np.nan], np.float32)
    assert _run("f32", x, rewrite=True).tolist() == _run("f32", x, rewrite=False).tolist() == [2**63 - 1]


_NARROW = """func.func @main(%a: tensor<6xi8>, %b: tensor<6xi8>, %c: tensor<6xi16>, %d: tensor<6xi16>, %e: tensor<6xi64>)
    -> (tensor<6xi8>, tensor<6xi8>, tensor<6xi16>, tensor<6xi16>, tensor<6xi1>, tensor<6xi1>, tensor<6xi64>, tensor<6xi16>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sum = tosa.add %a, %b : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi8>
  %product = tosa.mul %a, %b, %shift : (tensor<6xi8>, tensor<6xi8>, tensor<1xi8>) -> tensor<6xi8>
  %difference = tosa.sub %c, %d : (tensor<6xi16>, tensor<6xi16>) -> tensor<6xi16>
  %largest = tosa.maximum %c, %d : (tensor<6xi16>, tensor<6xi16>) -> tensor<6xi16>
  %greater = tosa.greater %a, %b : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi1>
  %same = tosa.equal %greater, %greater : (tensor<6xi1>, tensor<6xi1>) -> tensor<6xi1>
  %wide = tosa.cast %a : (tensor<6xi8>) -> tensor<6xi64>
  %narrow = tosa.cast %e : (tensor<6xi64>) -> tensor<6xi16>
  return %sum, %product, %difference, %largest, %greater, %same, %wide, %narrow
    : tensor<6xi8>, tensor<6xi8>, tensor<6xi16>, tensor<6xi16>, tensor<6xi1>, tensor<6xi1>, tensor<6xi64>, tensor<6xi16>
}"""


def test_narrow_integer_ops_on_i32_give_the_same_answers():
    """i8/i16 arithmetic, comparisons, i1 equality and casts from and to i64 (transforms/tosa/narrow_integers.py),
    overflowing values included: the wrapped results of the narrow ops."""
    from onnx_torch_mlir.transforms.tosa.narrow_integers import widen_narrow_integer_ops

    a = np.array([127, -128, 100, -7, 0, 64], np.int8)
    b = np.array([1, -1, 100, 3, -128, 2], np.int8)
    c = np.array([32767, -32768, 300, -5, 0, 255], np.int16)
    d = np.array([1, 1, -300, 9, -32768, 255], np.int16)
    e = np.array([2**40 + 5, -(2**33) - 1, 70000, -70000, 2**63 - 1, -(2**63)], np.int64)
    results = []
    for rewrite in (False, True):
        with make_context():
            module = ir.Module.parse(_NARROW)
            if rewrite:
                assert widen_narrow_integer_ops(module) == 8
                PassManager.parse(f"builtin.module({_TARGET})").run(module.operation)  # raises if not valid
            results.append([r.tolist() for r in compile_for_cpu(module, input_dialect="tosa")(a, b, c, d, e)])
            if rewrite:  # IREE compiles the widened form and agrees
                from onnx_torch_mlir.runtime.iree import compile_with_iree

                assert [np.asarray(r).tolist() for r in compile_with_iree(module, "tosa")(a, b, c, d, e)] == results[-1]
    assert results[1] == results[0]
    assert results[0][0] == (a.astype(np.int32) + b).astype(np.int8).tolist()
    assert results[0][7] == e.astype(np.int16).tolist()


def _int64_values() -> np.ndarray:
    """Edges (2^24 + 1, ties, 2^31, INT64_MIN/MAX, f16's overflow at 65520) and random values of every
    magnitude, many exactly halfway between two floats."""
    rng = np.random.default_rng(0)
    values = [0, 1, -1, 7, 2**24 + 1, 2**24 + 3, 2**25 + 2, -(2**24) - 1, 2**31 - 1, -(2**31), 2**53 + 1,
              2**63 - 1, -(2**63), -(2**63) + 1, 65504, 65519, 65520, 2**40 + 2**16, 2**40 + 2**16 + 1]
    values += [int(v) >> int(s) for v, s in zip(rng.integers(-(2**63), 2**63 - 1, 300, dtype=np.int64),
                                                rng.integers(0, 63, 300))]
    for _ in range(100):
        mantissa, shift = int(rng.integers(2**24, 2**26)), int(rng.integers(1, 37))
        values += [mantissa << shift, (mantissa << shift) + int(rng.integers(0, 2**shift)), -(mantissa << shift)]
    return np.array(values, np.int64)


_INT64_TO_FLOAT = """func.func @main(%x: tensor<{n}xi64>) -> tensor<{n}x{element}> {{
  %0 = tosa.cast %x : (tensor<{n}xi64>) -> tensor<{n}x{element}>
  return %0 : tensor<{n}x{element}>
}}"""


@pytest.mark.parametrize("element", ["f32", "f16", "bf16"])
def test_int64_to_float_rounds_once_as_the_direct_cast(element):
    x = _int64_values()
    results = []
    for rewrite in (False, True):
        with make_context():
            module = ir.Module.parse(_INT64_TO_FLOAT.format(n=len(x), element=element))
            if rewrite:
                assert exact_casts_between_floats_and_int64(module) == 1
                PassManager.parse(f"builtin.module({_TARGET})").run(module.operation)  # raises if not valid
            (result,) = compile_for_cpu(module, input_dialect="tosa")(x)
            results.append(result.astype(np.float64).tolist())
            if rewrite and element == "f32":  # IREE compiles the form (tosa.clz on i64) and agrees
                from onnx_torch_mlir.runtime.iree import compile_with_iree

                (on_iree,) = compile_with_iree(module, "tosa")(x)
                assert np.asarray(on_iree).astype(np.float64).tolist() == results[-1]
    assert results[1] == results[0]
    if element == "f32":
        assert results[0] == x.astype(np.float32).astype(np.float64).tolist()  # the C library rounds once
