// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// RandomUniformLike since 1: aten.uniform on [low, high) in the input's shape and type.
// CHECK-LABEL: func.func @random_uniform_like
func.func @random_uniform_like(%x: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: %[[LOW:.*]] = torch.constant.float -1.000000e+00
  // CHECK: %[[HIGH:.*]] = torch.constant.float 2.000000e+00
  // CHECK: torch.aten.uniform %arg0, %[[LOW]], %[[HIGH]], %{{.*}} : !torch.vtensor<[?,4],f32>, !torch.float, !torch.float, !torch.none -> !torch.vtensor<[?,4],f32>
  %0 = torch.operator "onnx.RandomUniformLike"(%x) {torch.onnx.low = -1.000000e+00 : f32, torch.onnx.high = 2.000000e+00 : f32} : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}

// -----

// RandomNormal since 1: a Box-Muller transform of the two halves of one uniform draw.
// CHECK-LABEL: func.func @random_normal_onnx_dialect
module attributes {onnx.opset_version = 17 : i64} {
  func.func @random_normal_onnx_dialect() -> tensor<3x2xf32> {
    // CHECK: torch.aten.uniform {{.*}} -> !torch.vtensor<[2,3,2],f32>
    // CHECK: torch.aten.log
    // CHECK: torch.aten.sqrt
    // CHECK: torch.aten.cos
    %0 = "onnx.RandomNormal"() {shape = [3 : si64, 2 : si64], mean = 0.5 : f32, scale = 2.0 : f32} : () -> tensor<3x2xf32>
    return %0 : tensor<3x2xf32>
  }
}
