// Forms the patterns refuse, each with its reason, all reported in one run.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @refused(%x: !torch.vtensor<[3],f32>, %r: !torch.vtensor<[?,?,?],f32>, %u4: !torch.vtensor<[0],ui4>, %e8: !torch.vtensor<[0],f8E8M0FNU>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[?,?,?],f32>) attributes {torch.onnx_meta.opset_version = 20 : si64} {
  // CHECK: family_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Gelu, domain 'ai.onnx', opset 20): approximate 'erf' is not one of 'none', 'tanh'
  %0 = torch.operator "onnx.Gelu"(%x) {torch.onnx.approximate = "erf"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  // CHECK: family_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (BitShift, domain 'ai.onnx', opset 20): direction 'UP' is not 'LEFT' or 'RIGHT'
  %2 = torch.operator "onnx.BitShift"(%x, %x) {torch.onnx.direction = "UP"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  // CHECK: family_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Softmax, domain 'ai.onnx', opset 20): axis 3 is out of range for rank 3
  %3 = torch.operator "onnx.Softmax"(%r) {torch.onnx.axis = 3 : si64} : (!torch.vtensor<[?,?,?],f32>) -> !torch.vtensor<[?,?,?],f32>
  // CHECK: family_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Cast, domain 'ai.onnx', opset 20): attribute 'to' names ONNX data type 8, which has no torch equivalent
  %4 = torch.operator "onnx.Cast"(%x) {torch.onnx.to = 8 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  // CHECK: family_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Cast, domain 'ai.onnx', opset 20): required attribute 'to' is missing
  %5 = torch.operator "onnx.Cast"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  // CHECK: family_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Cast, domain 'ai.onnx', opset 20): a cast to int4 or uint4 is not supported: torch has no 4-bit dtype to cast to (casts from them are)
  %6 = torch.operator "onnx.Cast"(%x) {torch.onnx.to = 22 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],si4>
  // CHECK: family_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (CastLike, domain 'ai.onnx', opset 20): a cast to int4 or uint4 is not supported: torch has no 4-bit dtype to cast to (casts from them are)
  %7 = torch.operator "onnx.CastLike"(%x, %u4) : (!torch.vtensor<[3],f32>, !torch.vtensor<[0],ui4>) -> !torch.vtensor<[3],ui4>
  // CHECK: family_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Cast, domain 'ai.onnx', opset 20): a cast to float4e2m1 is not supported: Torch has no float4 dtype to convert to (its float4_e2m1fn_x2 packs two values a byte); casts from float4e2m1 are
  %8 = torch.operator "onnx.Cast"(%x) {torch.onnx.to = 23 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f4E2M1FN>
  // CHECK: family_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (CastLike, domain 'ai.onnx', opset 20): a cast to float8e8m0 is not supported: torch-mlir's lowerings have no float8_e8m0fnu dtype for a torch op to produce; casts from float8e8m0 are
  %9 = torch.operator "onnx.CastLike"(%x, %e8) : (!torch.vtensor<[3],f32>, !torch.vtensor<[0],f8E8M0FNU>) -> !torch.vtensor<[3],f8E8M0FNU>
  return %0, %x, %2, %3 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[?,?,?],f32>
}
// CHECK-NOT: error
