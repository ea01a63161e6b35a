// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Compiled for StableHLO, an unsigned max pool is computed in a wider signed type: torch-mlir's
// StableHLO lowering of the unsigned one crashes. The target attribute is consumed.
// CHECK-LABEL: func.func @max_pool_uint8_for_stablehlo
// CHECK-NOT: onnx_torch_mlir.target
// CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[1,1,5,5],si16>
// CHECK: %[[POOLED:.*]] = torch.aten.max_pool2d %[[WIDE]], {{.*}} -> !torch.vtensor<[1,1,5,5],si16>
// CHECK: torch.aten.to.dtype %[[POOLED]], {{.*}} -> !torch.vtensor<[1,1,5,5],ui8>
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @max_pool_uint8_for_stablehlo(%x: !torch.vtensor<[1,1,5,5],ui8>) -> !torch.vtensor<[1,1,5,5],ui8> attributes {torch.onnx_meta.opset_version = 22 : si64} {
    %0 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.kernel_shape = [5 : si64, 5 : si64], torch.onnx.pads = [2 : si64, 2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,5,5],ui8>) -> !torch.vtensor<[1,1,5,5],ui8>
    return %0 : !torch.vtensor<[1,1,5,5],ui8>
  }
}

// -----

// For any other target the unsigned pool stays as it is.
// CHECK-LABEL: func.func @max_pool_uint8_for_linalg
// CHECK-NOT: torch.aten.to.dtype
// CHECK: torch.aten.max_pool2d %arg0, {{.*}} -> !torch.vtensor<[1,1,5,5],ui8>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @max_pool_uint8_for_linalg(%x: !torch.vtensor<[1,1,5,5],ui8>) -> !torch.vtensor<[1,1,5,5],ui8> attributes {torch.onnx_meta.opset_version = 22 : si64} {
    %0 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.kernel_shape = [5 : si64, 5 : si64], torch.onnx.pads = [2 : si64, 2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,5,5],ui8>) -> !torch.vtensor<[1,1,5,5],ui8>
    return %0 : !torch.vtensor<[1,1,5,5],ui8>
  }
}

// -----

// TOSA's profiles have no 64-bit integers: a cast between i64 and a float goes through i32 there
// (IREE refused tosa.cast i64 -> f32 in BERT's attention mask).
// CHECK-LABEL: func.func @cast_int64_to_float_for_tosa
// CHECK: %[[NARROW:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[2,5],si32>
// CHECK: torch.aten.to.dtype %[[NARROW]], {{.*}} -> !torch.vtensor<[2,5],f32>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @cast_int64_to_float_for_tosa(%arg0: !torch.vtensor<[2,5],si64>) -> !torch.vtensor<[2,5],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %0 = torch.operator "onnx.Cast"(%arg0) {torch.onnx.to = 1 : si64} : (!torch.vtensor<[2,5],si64>) -> !torch.vtensor<[2,5],f32>
    return %0 : !torch.vtensor<[2,5],f32>
  }
}

// -----

// Elsewhere the cast is direct.
// CHECK-LABEL: func.func @cast_int64_to_float_for_linalg
// CHECK: torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[2,5],f32>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @cast_int64_to_float_for_linalg(%arg0: !torch.vtensor<[2,5],si64>) -> !torch.vtensor<[2,5],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %0 = torch.operator "onnx.Cast"(%arg0) {torch.onnx.to = 1 : si64} : (!torch.vtensor<[2,5],si64>) -> !torch.vtensor<[2,5],f32>
    return %0 : !torch.vtensor<[2,5],f32>
  }
}
