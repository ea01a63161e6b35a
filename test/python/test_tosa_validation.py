"""Our TOSA output validates against the target it claims (tools/tosa_validation.py: TOSA 1.1.draft,
pro_int and pro_fp, the extensions listed there): a representative slice of the conformance cases
that pass on TOSA and a zoo model. The cases whose output is known not to be valid TOSA are checked
to fail for the written reason of their group (tools/tosa_validation.py KNOWN_INVALID), so a new
kind of invalid output, or a group that became valid, is noticed. The whole set:
`tools/tosa_validation.py` (docs/tosa-validation.md)."""

import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "tools"))
sys.path.insert(0, str(REPOSITORY / "test" / "models"))

import tosa_validation  # noqa: E402

# One or two cases per op family and per transform that made a form valid (casts between floats and int64,
# i8/i16 arithmetic and comparisons, i1 equality, integer products with run-time zero points), control flow and
# dynamic-free quantization.
VALID = [
    "node/test_add_bcast", "node/test_conv_with_strides_padding", "node/test_convtranspose", "node/test_gemm_all_attributes",
    "node/test_matmul_3d", "node/test_softmax_axis_1", "node/test_layer_normalization_3d_axis1_epsilon",
    "node/test_maxpool_2d_pads", "node/test_averagepool_2d_default", "node/test_reduce_mean_keepdims_example",
    "node/test_gather_0", "node/test_where_example", "node/test_transpose_default", "node/test_concat_3d_axis_1",
    "node/test_slice", "node/test_lstm_defaults", "node/test_if", "node/test_erf",
    "node/test_dequantizelinear", "node/test_quantizelinear",
    "node/test_gridsample_bilinear", "node/test_resize_upsample_scales_linear", "node/test_roialign_aligned_true",
    "node/test_onehot_with_axis", "node/test_cast_FLOAT_to_INT2", "node/test_range_float_type_positive_delta",
    "node/test_nonmaxsuppression_two_classes",
    "node/test_add_int8", "node/test_mul_int16", "node/test_greater_uint8", "node/test_equal_int16",
    "node/test_mod_mixed_sign_int8", "node/test_mod_broadcast", "node/test_bitshift_left_uint16",
    "node/test_clip_default_int8_max_expanded",
    "node/test_matmulinteger", "node/test_qlinearmatmul_2D_uint8_float32", "node/test_convinteger_with_padding",
    "node/test_qlinearconv", "node/test_group_normalization_example",
]

# One case per group of KNOWN_INVALID: the group its first error must fall in.
KNOWN_INVALID = {
    "node/test_pow_types_int32_int32": "float64",  # integer Pow in float64 on purpose (transforms/tosa/float64.py)
    "node/test_cast_FLOAT_to_FLOAT8E4M3FNUZ": "FNUZ float8",
    "node/test_cast_FLOAT4E2M1_to_FLOAT": "float4 and E8M0",
    "node/test_cast_INT4_to_INT8": "4-bit integers",
}


@pytest.fixture(scope="module")
def cases():
    from onnx_torch_mlir.conformance.cases import collect_cases

    wanted = set(VALID) | set(KNOWN_INVALID)
    found = {case.case_id: case for case in collect_cases() if case.case_id in wanted}
    assert set(found) == wanted, f"cases not found: {sorted(wanted - set(found))}"
    passing = set((REPOSITORY / "test/conformance/passing/ours/tosa.txt").read_text().split())
    assert wanted <= passing, f"not passing on TOSA: {sorted(wanted - passing)}"
    return found


@pytest.mark.parametrize("case_id", VALID)
def test_output_validates(cases, case_id):
    error = tosa_validation.first_error(cases[case_id])
    assert error is None, f"{case_id}: {error} (group: {tosa_validation.known_invalid(error)})"


@pytest.mark.parametrize("case_id, group", sorted(KNOWN_INVALID.items()))
def test_known_invalid_output_fails_for_its_written_reason(cases, case_id, group):
    error = tosa_validation.first_error(cases[case_id])
    assert error is not None, f"{case_id} validates now: drop it from the '{group}' group's examples"
    found = tosa_validation.known_invalid(error)
    assert found is not None, f"{case_id}: unexplained invalid TOSA: {error}"
    assert found.name == group and found.reason, (case_id, error)


def test_every_known_group_has_a_reason_and_an_example():
    assert {group.name for group in tosa_validation.KNOWN_INVALID} - {"reshape to an inferred size"} <= set(KNOWN_INVALID.values())
    assert all(len(group.reason) > 40 for group in tosa_validation.KNOWN_INVALID)


def test_zoo_helper_mlp_validates_with_its_batch_fixed(tmp_path):
    """The zoo's hand-built model (MatMul, Add, LayerNormalization, Tanh, Softmax), batch fixed with --dim;
    with a dynamic batch, its reshapes keep a -1 the specification has no room for (a known group)."""
    import zoo_models

    import onnx_torch_mlir

    path = str(zoo_models.build_helper_mlp(tmp_path))
    assert tosa_validation.validation_error(onnx_torch_mlir.compile(path, output_type="tosa", dims={"batch": 3})) is None
    dynamic_error = tosa_validation.validation_error(onnx_torch_mlir.compile(path, output_type="tosa"))
    assert tosa_validation.known_invalid(dynamic_error).name == "reshape to an inferred size", dynamic_error
