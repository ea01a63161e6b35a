// Function ops whose expansion cannot be converted: the node is named with the reason, the
// body node that failed included, and the node stays as it was.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @refused(%x: !torch.vtensor<*,f32>, %scale: !torch.vtensor<[4],f32>, %theta: !torch.vtensor<[2,2,3],f32>, %size: !torch.vtensor<[4],si64>) -> (!torch.vtensor<*,f32>, !torch.vtensor<[2,5,6,2],f32>) attributes {torch.onnx_meta.opset_version = 23 : si64} {
  // CHECK: functions_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (RMSNormalization, domain 'ai.onnx', opset 23): in its function body: unnamed node (Shape, domain 'ai.onnx', opset 23): needs a ranked input 0
  %0 = torch.operator "onnx.RMSNormalization"(%x, %scale) : (!torch.vtensor<*,f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<*,f32>
  // AffineGrid, whose body's If depends on run-time values, has a pattern now (linear_algebra.py).
  %1 = torch.operator "onnx.AffineGrid"(%theta, %size) {torch.onnx.align_corners = 1 : si64} : (!torch.vtensor<[2,2,3],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[2,5,6,2],f32>
  return %0, %1 : !torch.vtensor<*,f32>, !torch.vtensor<[2,5,6,2],f32>
}
// CHECK-NOT: error
