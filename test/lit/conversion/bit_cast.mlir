// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// BitCast since 26, between integers of one width: the wrapping value conversion keeps the bits.
// CHECK-LABEL: func.func @bit_cast_integers
func.func @bit_cast_integers(%x: !torch.vtensor<[?],ui32>) -> !torch.vtensor<[?],si32> attributes {torch.onnx_meta.opset_version = 26 : si64} {
  // CHECK: torch.aten.to.dtype %arg0, {{.*}} : !torch.vtensor<[?],ui32>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[?],si32>
  %0 = torch.operator "onnx.BitCast"(%x) {torch.onnx.to = 6 : si64} : (!torch.vtensor<[?],ui32>) -> !torch.vtensor<[?],si32>
  return %0 : !torch.vtensor<[?],si32>
}

// -----

// Float bits: aten.view.dtype (lowered to StableHLO's bitcast_convert).
// CHECK-LABEL: func.func @bit_cast_float_onnx_dialect
module attributes {onnx.opset_version = 26 : i64} {
  func.func @bit_cast_float_onnx_dialect(%x: tensor<2x3xf32>) -> tensor<2x3xi32> {
    // CHECK: %[[INT32:.*]] = torch.constant.int 3
    // CHECK: torch.aten.view.dtype %{{.*}}, %[[INT32]] : !torch.vtensor<[2,3],f32>, !torch.int -> !torch.vtensor<[2,3],si32>
    %0 = "onnx.BitCast"(%x) {to = 6 : si64} : (tensor<2x3xf32>) -> tensor<2x3xi32>
    return %0 : tensor<2x3xi32>
  }
}

// -----

// For Linalg (and TOSA), which cannot lower aten.view.dtype: the float taken apart in exact
// arithmetic (a binary search for the exponent over a table of powers of two, then the mantissa).
// CHECK-LABEL: func.func @bit_cast_float_for_linalg
// CHECK-NOT: torch.aten.view.dtype
// CHECK: torch.aten.index_select {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: torch.aten.where.self {{.*}} -> !torch.vtensor<[3],si32>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @bit_cast_float_for_linalg(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],si32> attributes {torch.onnx_meta.opset_version = 26 : si64} {
    %0 = torch.operator "onnx.BitCast"(%x) {torch.onnx.to = 6 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],si32>
    return %0 : !torch.vtensor<[3],si32>
  }
}

// -----

// Integer bits to a float for TOSA: shifts and masks split the fields, a table scales them.
// CHECK-LABEL: func.func @bit_cast_int_to_float_for_tosa
// CHECK: torch.aten.bitwise_right_shift.Tensor
// CHECK: torch.aten.bitwise_and.Scalar
// CHECK: torch.aten.to.dtype {{.*}} -> !torch.vtensor<[3],f16>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @bit_cast_int_to_float_for_tosa(%x: !torch.vtensor<[3],si16>) -> !torch.vtensor<[3],f16> attributes {torch.onnx_meta.opset_version = 26 : si64} {
    %0 = torch.operator "onnx.BitCast"(%x) {torch.onnx.to = 10 : si64} : (!torch.vtensor<[3],si16>) -> !torch.vtensor<[3],f16>
    return %0 : !torch.vtensor<[3],f16>
  }
}
