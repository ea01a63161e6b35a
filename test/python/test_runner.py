"""The reference CPU runner on hand-written Linalg, TOSA and StableHLO programs."""

import ml_dtypes
import numpy as np
import pytest

from onnx_torch_mlir.errors import RunnerError, UnsupportedTypeError
from onnx_torch_mlir.runtime import compile_for_cpu, run


def binary_elementwise(element: str, body: str, shape: str = "2x3") -> str:
    """A Linalg program `(a, b) -> body(a, b)` elementwise on `tensor<{shape}x{element}>`.

    `body` computes `%r` from `%x` and `%y`.
    """
    tensor = f"tensor<{shape}x{element}>"
    rank = shape.count("x") + 1
    dims = ", ".join(f"d{i}" for i in range(rank))
    identity = f"affine_map<({dims}) -> ({dims})>"
    iterators = ", ".join(['"parallel"'] * rank)
    return f"""
func.func @main_graph(%a: {tensor}, %b: {tensor}) -> {tensor} {{
  %init = tensor.empty() : {tensor}
  %0 = linalg.generic {{indexing_maps = [{identity}, {identity}, {identity}],
                       iterator_types = [{iterators}]}}
      ins(%a, %b : {tensor}, {tensor}) outs(%init : {tensor}) {{
  ^bb0(%x: {element}, %y: {element}, %out: {element}):
    {body}
    linalg.yield %r : {element}
  }} -> {tensor}
  return %0 : {tensor}
}}
"""


def sample(dtype, shape=(2, 3), seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


FLOAT_CASES = [
    ("f16", np.float16),
    ("bf16", ml_dtypes.bfloat16),
    ("f32", np.float32),
    ("f64", np.float64),
]


@pytest.mark.parametrize("element, dtype", FLOAT_CASES)
def test_float_dtypes_in_and_out(element, dtype):
    program = binary_elementwise(element, f"%s = arith.mulf %x, %y : {element}\n    %r = arith.addf %s, %x : {element}")
    a, b = sample(dtype, seed=1), sample(dtype, seed=2)
    (result,) = run(program, [a, b])
    assert result.dtype == np.dtype(dtype)
    expected = (a.astype(np.float32) * b.astype(np.float32)).astype(dtype).astype(np.float32) + a.astype(np.float32)
    np.testing.assert_allclose(result.astype(np.float32), expected, rtol=1e-2)


INTEGER_CASES = [("i8", np.int8), ("i16", np.int16), ("i32", np.int32), ("i64", np.int64)]


@pytest.mark.parametrize("element, dtype", INTEGER_CASES)
def test_signless_integers_come_back_signed(element, dtype):
    program = binary_elementwise(element, f"%r = arith.subi %x, %y : {element}")
    a, b = sample(dtype, seed=1), sample(dtype, seed=2)
    (result,) = run(program, [a, b])
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, a - b)


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
def test_unsigned_integers_through_reinterpretation(bits):
    element, dtype = f"i{bits}", np.dtype(f"uint{bits}")
    program = binary_elementwise(element, f"%r = arith.maxui %x, %y : {element}")
    info = np.iinfo(dtype)
    a = np.array([[info.max, 1, 0], [7, info.max - 3, 200]], dtype)
    b = np.array([[1, info.max - 1, 0], [8, 3, 100]], dtype)
    (result,) = run(program, [a, b], result_dtypes=[dtype])
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, np.maximum(a, b))


def test_i1_as_bool():
    program = binary_elementwise("i1", "%r = arith.xori %x, %y : i1")
    a, b = sample(np.bool_, seed=1), sample(np.bool_, seed=2)
    (result,) = run(program, [a, b])
    assert result.dtype == np.bool_
    np.testing.assert_array_equal(result, a ^ b)


@pytest.mark.parametrize("element, dtype", [("complex<f32>", np.complex64), ("complex<f64>", np.complex128)])
def test_complex(element, dtype):
    program = binary_elementwise(element, f"%s = complex.mul %x, %y : {element}\n    %r = complex.add %s, %x : {element}")
    a, b = sample(dtype, seed=1), sample(dtype, seed=2)
    (result,) = run(program, [a, b])
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_allclose(result, a * b + a, rtol=1e-5)


def test_math_functions_from_libm():
    program = binary_elementwise("f32", "%t = math.tanh %x : f32\n    %e = math.erf %y : f32\n    %r = arith.addf %t, %e : f32")
    a, b = sample(np.float32, seed=1), sample(np.float32, seed=2)
    (result,) = run(program, [a, b])
    erf = np.vectorize(__import__("math").erf)
    np.testing.assert_allclose(result, np.tanh(a) + erf(b), rtol=1e-5, atol=1e-6)



@pytest.mark.parametrize("name", ["erf", "tanh"])
def test_entry_named_like_a_libm_function(name):
    """The lowering declares libm's `erf` and `tanh`; an entry of that name must not stand in for them."""
    program = binary_elementwise("f64", "%t = math.tanh %x : f64\n    %e = math.erf %y : f64\n    %r = arith.addf %t, %e : f64")
    compiled = compile_for_cpu(program.replace("@main_graph", f"@{name}"))
    assert compiled.entry == name
    a, b = sample(np.float64, seed=1), sample(np.float64, seed=2)
    (result,) = compiled(a, b)
    erf = np.vectorize(__import__("math").erf)
    np.testing.assert_allclose(result, np.tanh(a) + erf(b), rtol=1e-12)

def test_rank_zero_tensors():
    program = binary_elementwise("f32", "%r = arith.subf %x, %y : f32", shape="").replace("tensor<xf32>", "tensor<f32>")
    program = program.replace("affine_map<(d0) -> (d0)>", "affine_map<() -> ()>").replace('"parallel"', "")
    (result,) = run(program, [np.array(5.5, np.float32), np.array(2.0, np.float32)])
    assert result.shape == () and result.dtype == np.float32
    assert result == np.float32(3.5)


SEVERAL_RESULTS = """
func.func @main_graph(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<2xi64>, tensor<4xi32>) {
  %init = tensor.empty() : tensor<4xi32>
  %doubled = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                             iterator_types = ["parallel"]}
      ins(%a : tensor<4xi32>) outs(%init : tensor<4xi32>) {
  ^bb0(%x: i32, %out: i32):
    %r = arith.addi %x, %x : i32
    linalg.yield %r : i32
  } -> tensor<4xi32>
  %constant = arith.constant dense<[11, -12]> : tensor<2xi64>
  return %doubled, %a, %constant, %doubled : tensor<4xi32>, tensor<4xi32>, tensor<2xi64>, tensor<4xi32>
}
"""


def test_several_results_aliasing_inputs_each_other_and_constants():
    program = compile_for_cpu(SEVERAL_RESULTS)
    a = np.array([1, -2, 3, 40], np.int32)
    doubled, same, constant, doubled_again = program(a)
    np.testing.assert_array_equal(doubled, 2 * a)
    np.testing.assert_array_equal(same, a)
    np.testing.assert_array_equal(constant, np.array([11, -12], np.int64))
    np.testing.assert_array_equal(doubled_again, 2 * a)
    assert same is not a and not np.shares_memory(doubled, doubled_again)
    assert program.result_types == ("tensor<4xi32>", "tensor<4xi32>", "tensor<2xi64>", "tensor<4xi32>")
    # Results are owned copies: a second call does not change the first call's arrays.
    program(np.zeros(4, np.int32))
    np.testing.assert_array_equal(doubled, 2 * a)


IN_PLACE_ON_ARGUMENT = """
func.func @main_graph(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%a : tensor<3xf32>) {
  ^bb0(%x: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""


def test_the_callers_arrays_are_never_written():
    a = np.array([1.0, 2.0, 3.0], np.float32)
    (result,) = run(IN_PLACE_ON_ARGUMENT, [a])
    np.testing.assert_array_equal(result, -np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])


DYNAMIC_TRANSPOSE = """
func.func @main_graph(%a: tensor<?x3xf32>) -> tensor<3x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x3xf32>
  %init = tensor.empty(%n) : tensor<3x?xf32>
  %0 = linalg.transpose ins(%a : tensor<?x3xf32>) outs(%init : tensor<3x?xf32>) permutation = [1, 0]
  return %0 : tensor<3x?xf32>
}
"""


def test_dynamic_dimensions_with_two_sizes():
    program = compile_for_cpu(DYNAMIC_TRANSPOSE)
    assert program.input_types == ("tensor<?x3xf32>",)
    for rows in (2, 5):
        a = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        (result,) = program(a)
        assert result.shape == (3, rows)
        np.testing.assert_array_equal(result, a.T)


def test_non_contiguous_inputs_are_accepted():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2].T  # shape (2, 3), strided
    (result,) = run(DYNAMIC_TRANSPOSE, [a])
    np.testing.assert_array_equal(result, a.T)


STRIDED_COPY = """
func.func @main_graph(%a: tensor<2x2xi16>, %b: tensor<4x4xi16>) -> tensor<4x4xi16> {
  %0 = tensor.insert_slice %a into %b[1, 0] [2, 2] [1, 2] : tensor<2x2xi16> into tensor<4x4xi16>
  return %0 : tensor<4x4xi16>
}
"""


def test_strided_copy_needs_no_runtime_library():
    a = np.array([[1, 2], [3, 4]], np.int16)
    b = np.zeros((4, 4), np.int16)
    (result,) = run(STRIDED_COPY, [a, b])
    expected = b.copy()
    expected[1:3, 0:4:2] = a
    np.testing.assert_array_equal(result, expected)


STRIDED_RESULT = """
func.func @main_graph(%a: tensor<4x6xf64>) -> tensor<2x3xf64> {
  %0 = tensor.extract_slice %a[1, 1] [2, 3] [2, 2] : tensor<4x6xf64> to tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
"""


def test_strided_view_result():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    (result,) = run(STRIDED_RESULT, [a])
    np.testing.assert_array_equal(result, a[1::2, 1::2])
    assert result.flags.c_contiguous


TOSA_PROGRAM = """
func.func @main_graph(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %1 = tosa.tanh %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tosa.transpose %1 {perms = array<i32: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<3x2xf32>
}
"""


def test_tosa_program():
    a, b = sample(np.float32, (2, 3), seed=1), sample(np.float32, (1, 3), seed=2)
    activated, transposed = run(TOSA_PROGRAM, [a, b], input_dialect="tosa")
    np.testing.assert_allclose(activated, np.tanh(a + b), rtol=1e-5)
    np.testing.assert_allclose(transposed, np.tanh(a + b).T, rtol=1e-5)


TOSA_INT8_PROGRAM = """
func.func @main_graph(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %0 = tosa.maximum %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
"""


def test_tosa_int8_program():
    a, b = np.array([-5, 7, 0, 127], np.int8), np.array([3, -8, 0, -128], np.int8)
    (result,) = run(TOSA_INT8_PROGRAM, [a, b], input_dialect="tosa")
    np.testing.assert_array_equal(result, np.maximum(a, b))


STABLEHLO_PROGRAM = """
func.func @main_graph(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = stablehlo.exponential %a : tensor<2x3xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<2x3xf32>
}
"""


def test_stablehlo_program():
    a, b = sample(np.float32, (2, 3), seed=1), sample(np.float32, (3, 2), seed=2)
    product, exponential = run(STABLEHLO_PROGRAM, [a, b], input_dialect="stablehlo")
    np.testing.assert_allclose(product, a @ b, rtol=1e-5)
    np.testing.assert_allclose(exponential, np.exp(a), rtol=1e-5)


STABLEHLO_DYNAMIC_PROGRAM = """
func.func @main_graph(%a: tensor<?xi64>) -> tensor<?xi64> {
  %0 = stablehlo.multiply %a, %a : tensor<?xi64>
  %1 = stablehlo.add %0, %a : tensor<?xi64>
  return %1 : tensor<?xi64>
}
"""


def test_stablehlo_dynamic_program():
    program = compile_for_cpu(STABLEHLO_DYNAMIC_PROGRAM, input_dialect="stablehlo")
    for size in (1, 6):
        a = np.arange(size, dtype=np.int64) - 2
        (result,) = program(a)
        np.testing.assert_array_equal(result, a * a + a)


CHLO_BROADCAST_PROGRAM = """
func.func @main_graph(%a: tensor<2x3xf64>, %b: tensor<3xf64>) -> tensor<2x3xf64> {
  %0 = chlo.broadcast_subtract %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
"""


def test_chlo_broadcast_program():
    a, b = sample(np.float64, (2, 3), seed=1), sample(np.float64, (3,), seed=2)
    (result,) = run(CHLO_BROADCAST_PROGRAM, [a, b], input_dialect="stablehlo")
    np.testing.assert_allclose(result, a - b)


TMTENSOR_SORT = """
func.func @main_graph(%a: tensor<5xi64>) -> tensor<5xi64> {
  %0 = tm_tensor.sort dimension(0) outs(%a : tensor<5xi64>) {
  ^bb0(%x: i64, %y: i64):
    %less = arith.cmpi slt, %x, %y : i64
    tm_tensor.yield %less : i1
  } -> tensor<5xi64>
  return %0 : tensor<5xi64>
}
"""


def test_torch_mlir_tmtensor_ops():
    a = np.array([3, -1, 4, 1, 5], np.int64)
    (result,) = run(TMTENSOR_SORT, [a])
    np.testing.assert_array_equal(result, np.sort(a))
    np.testing.assert_array_equal(a, [3, -1, 4, 1, 5])


def test_module_objects_are_not_mutated():
    from torch_mlir import ir

    from onnx_torch_mlir.mlir_context import make_context

    with make_context():
        module = ir.Module.parse(SEVERAL_RESULTS)
        before = str(module)
        outputs = run(module, [np.array([1, 2, 3, 4], np.int32)])
        assert str(module) == before
    np.testing.assert_array_equal(outputs[0], [2, 4, 6, 8])


def test_entry_is_chosen_by_name():
    program = SEVERAL_RESULTS + DYNAMIC_TRANSPOSE.replace("@main_graph", "@other")
    with pytest.raises(RunnerError, match="@main_graph, @other"):
        compile_for_cpu(program)
    compiled = compile_for_cpu(program, entry="other")
    assert compiled.entry == "other"
    (result,) = compiled(np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(result, np.ones((3, 1), np.float32))


def test_float6_is_unsupported():
    # float8 and float4 are emulated (test_float8_runner.py); float6 has no ONNX type and is not.
    program = IN_PLACE_ON_ARGUMENT.replace("f32", "f6E3M2FN")
    with pytest.raises(UnsupportedTypeError, match=r"float type f6E3M2FN \(argument 0\) is not emulated"):
        compile_for_cpu(program)


def test_wrong_number_of_inputs():
    program = compile_for_cpu(IN_PLACE_ON_ARGUMENT)
    with pytest.raises(RunnerError, match="takes 1 inputs, got 2"):
        program(np.ones(3, np.float32), np.ones(3, np.float32))


def test_wrong_shape_and_dtype():
    program = compile_for_cpu(DYNAMIC_TRANSPOSE)
    with pytest.raises(RunnerError, match=r"argument 0 expects tensor<\?x3xf32>, got an array of shape \(2, 4\)"):
        program(np.ones((2, 4), np.float32))
    with pytest.raises(RunnerError, match=r"argument 0 expects tensor<\?x3xf32>, got .* dtype float64"):
        program(np.ones((2, 3), np.float64))
    with pytest.raises(RunnerError, match=r"shape \(6,\)"):
        program(np.ones(6, np.float32))


def test_ops_of_another_dialect_are_reported():
    tosa_in_linalg = """
func.func @main_graph(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tosa.tanh %a : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""
    with pytest.raises(RunnerError, match=r"op tosa.tanh is not part of a linalg-on-tensors program"):
        compile_for_cpu(tosa_in_linalg)
    (result,) = run(tosa_in_linalg, [np.zeros(3, np.float32)], input_dialect="tosa")
    np.testing.assert_array_equal(result, np.zeros(3, np.float32))


def test_lowering_failure_reports_the_diagnostic():
    # stablehlo-legalize-to-linalg cannot broadcast a dimension that may or may not be 1.
    dynamic_broadcast = """
func.func @main_graph(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = chlo.broadcast_add %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""
    with pytest.raises(RunnerError, match=r"lowering the stablehlo program to LLVM failed: loc\(.*\): "):
        compile_for_cpu(dynamic_broadcast, input_dialect="stablehlo")


def test_parse_failure_and_unknown_dialect():
    with pytest.raises(RunnerError, match="cannot parse the program"):
        compile_for_cpu("func.func @main_graph(")
    with pytest.raises(RunnerError, match="unknown input dialect"):
        compile_for_cpu(IN_PLACE_ON_ARGUMENT, input_dialect="mhlo")


DYNAMIC_COLLAPSE = """
func.func @main_graph(%a: tensor<?x2x3xf32>) -> (tensor<?x3xf32>, tensor<?x2xf32>) {
  %0 = tensor.collapse_shape %a [[0, 1], [2]] : tensor<?x2x3xf32> into tensor<?x3xf32>
  %1 = tensor.collapse_shape %a [[0], [1, 2]] : tensor<?x2x3xf32> into tensor<?x6xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x2x3xf32>
  %2 = tensor.extract_slice %1[0, 1] [%n, 2] [1, 3] : tensor<?x6xf32> to tensor<?x2xf32>
  return %0, %2 : tensor<?x3xf32>, tensor<?x2xf32>
}
"""


def test_dynamic_reshapes_and_subviews():
    # expand-strided-metadata turns their sizes into affine.apply, which must
    # still be lowered (it was left behind an unrealized_conversion_cast).
    a = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    collapsed, sliced = run(DYNAMIC_COLLAPSE, [a])
    np.testing.assert_array_equal(collapsed, a.reshape(8, 3))
    np.testing.assert_array_equal(sliced, a.reshape(4, 6)[:, 1::3])


LOOP_YIELDING_A_FRESH_TENSOR = """
func.func @main_graph(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant dense<0.0> : tensor<3xf32>
  %0:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%sum = %zero, %last = %zero) -> (tensor<3xf32>, tensor<3xf32>) {
    %init = tensor.empty() : tensor<3xf32>
    %fresh = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                             iterator_types = ["parallel"]}
        ins(%a, %last : tensor<3xf32>, tensor<3xf32>) outs(%init : tensor<3xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %r = arith.addf %x, %y : f32
      linalg.yield %r : f32
    } -> tensor<3xf32>
    %next = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                            iterator_types = ["parallel"]}
        ins(%fresh : tensor<3xf32>) outs(%sum : tensor<3xf32>) {
    ^bb0(%x: f32, %out: f32):
      %r = arith.addf %x, %out : f32
      linalg.yield %r : f32
    } -> tensor<3xf32>
    scf.yield %next, %fresh : tensor<3xf32>, tensor<3xf32>
  }
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xf32>
}
"""


def test_loop_yielding_a_fresh_tensor():
    # One-Shot Bufferize must be allowed to return new allocations from loops
    # (an RNN's hidden state is such a loop-carried value).
    a = np.array([1, 2, 3], np.float32)
    program = compile_for_cpu(LOOP_YIELDING_A_FRESH_TENSOR)
    for _ in range(2):
        total, last = program(a)
        np.testing.assert_array_equal(total, 10 * a)
        np.testing.assert_array_equal(last, 4 * a)


def sub_byte_program(bits: int) -> str:
    """(a, b: iN) -> (extsi a, extui a, a - b, sitofp a) elementwise on 8 elements."""
    n = f"i{bits}"
    identity = "affine_map<(d0) -> (d0)>"
    return f"""
func.func @main_graph(%a: tensor<8x{n}>, %b: tensor<8x{n}>) -> (tensor<8xi8>, tensor<8xi8>, tensor<8x{n}>, tensor<8xf32>) {{
  %i8 = tensor.empty() : tensor<8xi8>
  %in = tensor.empty() : tensor<8x{n}>
  %f32 = tensor.empty() : tensor<8xf32>
  %0:4 = linalg.generic {{indexing_maps = [{", ".join([identity] * 6)}], iterator_types = ["parallel"]}}
      ins(%a, %b : tensor<8x{n}>, tensor<8x{n}>)
      outs(%i8, %i8, %in, %f32 : tensor<8xi8>, tensor<8xi8>, tensor<8x{n}>, tensor<8xf32>) {{
  ^bb0(%x: {n}, %y: {n}, %o1: i8, %o2: i8, %o3: {n}, %o4: f32):
    %s = arith.extsi %x : {n} to i8
    %u = arith.extui %x : {n} to i8
    %d = arith.subi %x, %y : {n}
    %f = arith.sitofp %x : {n} to f32
    linalg.yield %s, %u, %d, %f : i8, i8, {n}, f32
  }} -> (tensor<8xi8>, tensor<8xi8>, tensor<8x{n}>, tensor<8xf32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<8xi8>, tensor<8xi8>, tensor<8x{n}>, tensor<8xf32>
}}
"""


@pytest.mark.parametrize("bits", [4, 2])
def test_sub_byte_integers_one_byte_per_element(bits):
    signed, unsigned = getattr(ml_dtypes, f"int{bits}"), getattr(ml_dtypes, f"uint{bits}")
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    values = np.resize(np.arange(low, high + 1), 8)
    a, b = values.astype(signed), np.ones(8, signed)
    program = compile_for_cpu(sub_byte_program(bits))
    extended, zero_extended, difference, converted = program(a, b)
    np.testing.assert_array_equal(extended, values.astype(np.int8))
    np.testing.assert_array_equal(zero_extended, values & ((1 << bits) - 1))
    assert difference.dtype == np.dtype(signed)
    wrapped = (values - 1 - low) % (1 << bits) + low
    np.testing.assert_array_equal(difference.astype(np.int8), wrapped)
    np.testing.assert_array_equal(converted, values.astype(np.float32))
    # Unsigned arrays are accepted and results reinterpreted; stray high bits
    # of an input byte are ignored, as ml_dtypes ignores them.
    dirty = (a.view(np.uint8) | np.uint8(0xF0)).view(unsigned)
    outputs = program(dirty, b.view(unsigned))
    _, zero_extended, difference, _ = run(
        sub_byte_program(bits), [dirty, b.view(unsigned)], result_dtypes=[None, np.uint8, unsigned, None]
    )
    np.testing.assert_array_equal(outputs[0], values.astype(np.int8))
    np.testing.assert_array_equal(zero_extended, values & ((1 << bits) - 1))
    assert difference.dtype == np.dtype(unsigned)
    np.testing.assert_array_equal(difference.astype(np.uint8), (values - 1) & ((1 << bits) - 1))
    with pytest.raises(RunnerError, match=f"argument 0 expects tensor<8xi{bits}>, got .* dtype int8"):
        program(values.astype(np.int8), b)


DOUBLE_TO_HALF = """
func.func @main_graph(%a: tensor<7xf64>) -> tensor<7xf16> {
  %init = tensor.empty() : tensor<7xf16>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<7xf64>) outs(%init : tensor<7xf16>) {
  ^bb0(%x: f64, %out: f16):
    %r = arith.truncf %x : f64 to f16
    linalg.yield %r : f16
  } -> tensor<7xf16>
  return %0 : tensor<7xf16>
}
"""


@pytest.mark.parametrize("use_libgcc", [True, False])
def test_double_to_half_needs_a_compiler_runtime_function(use_libgcc, monkeypatch):
    # LLVM calls __truncdfhf2 for it; without libgcc_s the Python fallback serves.
    from onnx_torch_mlir.runtime import compiler_runtime

    if not use_libgcc:
        monkeypatch.setattr(compiler_runtime, "_libgcc", None)
    # 1 + 2**-11 + 2**-40 rounds up to 1 + 2**-10; through float32 it would round to 1.
    a = np.array([1 + 2**-11 + 2**-40, 65520.0, 65519.99, -3e-8, np.nan, -np.inf, 0.1], np.float64)
    (result,) = run(DOUBLE_TO_HALF, [a])
    with np.errstate(over="ignore"):
        expected = a.astype(np.float16)
    numbers = [0, 1, 2, 3, 5, 6]
    np.testing.assert_array_equal(result.view(np.uint16)[numbers], expected.view(np.uint16)[numbers])
    assert np.isnan(result[4])


FLOAT_TO_BFLOAT16 = """
func.func @main_graph(%a: tensor<6xf32>) -> tensor<6xbf16> {
  %init = tensor.empty() : tensor<6xbf16>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<6xf32>) outs(%init : tensor<6xbf16>) {
  ^bb0(%x: f32, %out: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<6xbf16>
  return %0 : tensor<6xbf16>
}
"""


def test_float_to_bfloat16_rounds_to_nearest_even_on_every_cpu():
    # Without AVX512-BF16 LLVM calls __truncsfbf2, which libgcc_s has only from GCC 13: the fallback serves.
    a = np.array([1 + 2**-8, 1 + 3 * 2**-8, 3.4e38, -1e-40, np.inf, 0.1], np.float32)
    (result,) = run(FLOAT_TO_BFLOAT16, [a])
    np.testing.assert_array_equal(result.view(np.uint16), a.astype(ml_dtypes.bfloat16).view(np.uint16))


MISSING_FUNCTION = """
func.func private @otm_no_such_function(f32) -> f32
func.func @main_graph(%a: tensor<f32>) -> tensor<f32> {
  %x = tensor.extract %a[] : tensor<f32>
  %y = func.call @otm_no_such_function(%x) : (f32) -> f32
  %r = tensor.from_elements %y : tensor<f32>
  return %r : tensor<f32>
}
"""


def test_missing_function_is_named_in_the_error(capfd):
    with pytest.raises(RunnerError, match=r"JIT compilation of @main_graph failed.*otm_no_such_function"):
        compile_for_cpu(MISSING_FUNCTION)
    assert "otm_no_such_function" not in capfd.readouterr().err


CHECKED_SIZES = """
func.func @main_graph(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = tensor.dim %b, %c0 : tensor<?xf32>
  %same = arith.cmpi eq, %n, %m : index
  cf.assert %same, "operands must have the same size"
  %init = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


def test_failed_runtime_assertion_raises_instead_of_aborting():
    program = compile_for_cpu(CHECKED_SIZES)
    (result,) = program(np.ones(3, np.float32), np.ones(3, np.float32))
    np.testing.assert_array_equal(result, np.full(3, 2, np.float32))
    # The longer operand keeps the loop in bounds; the shorter one would not.
    with pytest.raises(RunnerError, match=r"runtime assertion failed: 'operands must have the same size' at loc\("):
        program(np.ones(2, np.float32), np.ones(4, np.float32))
    (result,) = program(np.ones(2, np.float32), np.ones(2, np.float32))
    np.testing.assert_array_equal(result, np.full(2, 2, np.float32))


STABLEHLO_UNSIGNED_PROGRAM = """
func.func @main_graph(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xui8>) {
  %0 = stablehlo.divide %a, %b : tensor<4xui8>
  %1 = stablehlo.add %a, %b : tensor<4xui8>
  return %0, %1, %a : tensor<4xui8>, tensor<4xui8>, tensor<4xui8>
}
"""


def test_stablehlo_unsigned_integers_at_the_boundary():
    # The boundary becomes signless; the division must stay unsigned.
    a, b = np.array([200, 255, 7, 130], np.uint8), np.array([3, 16, 2, 200], np.uint8)
    quotient, total, same = run(STABLEHLO_UNSIGNED_PROGRAM, [a, b], input_dialect="stablehlo")
    assert quotient.dtype == total.dtype == same.dtype == np.uint8
    np.testing.assert_array_equal(quotient, a // b)
    np.testing.assert_array_equal(total, a + b)
    np.testing.assert_array_equal(same, a)


def test_compilations_in_a_row_with_generated_math_helpers():
    # convert-math-to-funcs generates helper functions and remembers them
    # across runs: a reused pass manager crashed on the next module.
    for element, dtype in (("i64", np.int64), ("i32", np.int32), ("i64", np.int64)):
        program = binary_elementwise(element, f"%r = math.ipowi %x, %y : {element}")
        a, b = np.array([[2, -3, 5], [0, 1, 7]], dtype), np.array([[10, 3, 0], [4, 9, 2]], dtype)
        (result,) = run(program, [a, b])
        np.testing.assert_array_equal(result, a**b)
