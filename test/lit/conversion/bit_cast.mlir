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
