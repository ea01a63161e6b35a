// Forms the quantization patterns refuse, each with its reason.
// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @refused(%x: !torch.vtensor<[3,4],f32>, %s: !torch.vtensor<[],f32>, %s2: !torch.vtensor<[3,2],f32>, %s5: !torch.vtensor<[5],f32>, %z5: !torch.vtensor<[5],si8>, %xd: !torch.vtensor<[3,?],f32>, %sb: !torch.vtensor<[3,2],f32>, %q: !torch.vtensor<[2,4],f8E4M3FN>, %qs: !torch.vtensor<[],f32>, %qz: !torch.vtensor<[],f8E4M3FN>, %u: !torch.vtensor<[1,2,6,6],ui8>, %uz: !torch.vtensor<[],ui8>, %m: !torch.vtensor<[2,3,4],ui8>, %md: !torch.vtensor<[2,?,4],ui8>) attributes {torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (QuantizeLinear, domain 'ai.onnx', opset 21): a scale of rank 2 needs block_size (blocked quantization)
  %0 = torch.operator "onnx.QuantizeLinear"(%x, %s2) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,4],ui8>
  // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (QuantizeLinear, domain 'ai.onnx', opset 21): per-axis scale has 5 values for 4 elements of axis 1
  %1 = torch.operator "onnx.QuantizeLinear"(%x, %s5, %z5) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[5],f32>, !torch.vtensor<[5],si8>) -> !torch.vtensor<[3,4],si8>
  // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (QuantizeLinear, domain 'ai.onnx', opset 21): blocked quantization needs a static size of the blocked axis 1
  %2 = torch.operator "onnx.QuantizeLinear"(%xd, %sb) {torch.onnx.axis = 1 : si64, torch.onnx.block_size = 2 : si64} : (!torch.vtensor<[3,?],f32>, !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,?],ui8>
  // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (QuantizeLinear, domain 'ai.onnx', opset 21): scale has 2 blocks on axis 1, not ceil(4 / block_size 1)
  %3 = torch.operator "onnx.QuantizeLinear"(%x, %sb) {torch.onnx.axis = 1 : si64, torch.onnx.block_size = 1 : si64} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,4],ui8>
  // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (QLinearMatMul, domain 'ai.onnx', opset 21): float8 QLinearMatMul is not supported
  %4 = torch.operator "onnx.QLinearMatMul"(%q, %qs, %qz, %q, %qs, %qz, %qs, %qz) : (!torch.vtensor<[2,4],f8E4M3FN>, !torch.vtensor<[],f32>, !torch.vtensor<[],f8E4M3FN>, !torch.vtensor<[2,4],f8E4M3FN>, !torch.vtensor<[],f32>, !torch.vtensor<[],f8E4M3FN>, !torch.vtensor<[],f32>, !torch.vtensor<[],f8E4M3FN>) -> !torch.vtensor<[2,4],f8E4M3FN>
  // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (QLinearAveragePool, domain 'com.microsoft', opset 1): asymmetric pads (begins [0, 0], ends [1, 1]) are not supported
  %5 = torch.operator "com.microsoft.QLinearAveragePool"(%u, %qs, %uz, %qs, %uz) {torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.pads = [0 : si64, 0 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,2,6,6],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,2,6,6],ui8>
  // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (QLinearAveragePool, domain 'com.microsoft', opset 1): ceil_mode is not supported
  %6 = torch.operator "com.microsoft.QLinearAveragePool"(%u, %qs, %uz, %qs, %uz) {torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.ceil_mode = 1 : si64} : (!torch.vtensor<[1,2,6,6],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,2,3,3],ui8>
  // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (QLinearSoftmax, domain 'com.microsoft', opset 1): softmax of opset 11 over dims 1.. of a dynamic shape is not supported
  %7 = torch.operator "com.microsoft.QLinearSoftmax"(%md, %qs, %uz, %qs, %uz) {torch.onnx.opset = 11 : si64} : (!torch.vtensor<[2,?,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,?,4],ui8>
  // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (QGemm, domain 'com.microsoft', opset 1): A and B must be 2-D
  %8 = torch.operator "com.microsoft.QGemm"(%m, %qs, %uz, %m, %qs, %uz) : (!torch.vtensor<[2,3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[2,3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3,4],f32>
  // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (QLinearMul, domain 'com.microsoft', opset 1): input 1 must be a scalar (per-tensor quantization)
  %9 = torch.operator "com.microsoft.QLinearMul"(%m, %s5, %uz, %m, %qs, %uz, %qs, %uz) : (!torch.vtensor<[2,3,4],ui8>, !torch.vtensor<[5],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[2,3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3,4],ui8>
  return
}

// -----

// torch-mlir's TOSA lowering cannot make a uint16 constant, the only way to produce a uint16 result.
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @uint16_for_tosa(%x: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[],f32>) -> !torch.vtensor<[4],ui16> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    %z = torch.operator "onnx.Constant"() {torch.onnx.value = dense<7> : tensor<ui16>} : () -> !torch.vtensor<[],ui16>
    // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (QuantizeLinear, domain 'ai.onnx', opset 21): a ui16 result with a literal zero point is not supported on TOSA: torch-mlir's TOSA lowering makes no ui16 constants
    %0 = torch.operator "onnx.QuantizeLinear"(%x, %s, %z) : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui16>) -> !torch.vtensor<[4],ui16>
    return %0 : !torch.vtensor<[4],ui16>
  }
}

// -----

// The ONNX dialect spells 2-bit types i2/ui2, which no Torch type holds (the torch-ONNX form of
// our importer holds them in 8 bits).
module attributes {onnx.opset_version = 25 : i64} {
  func.func @two_bits(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i2>) -> tensor<4xi2> {
    // CHECK: quantization_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (QuantizeLinear, domain 'ai.onnx', opset 25): int2 tensors are not supported: the Torch dialect has no int2 dtype
    %0 = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i2>) -> tensor<4xi2>
    return %0 : tensor<4xi2>
  }
}
