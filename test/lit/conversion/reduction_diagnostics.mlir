// Forms the reduction patterns refuse, each with its reason, all reported in one run.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @refused(%x: !torch.vtensor<[3,4],f32>, %axes: !torch.vtensor<[?],si64>, %one: !torch.vtensor<[1],si64>, %u: !torch.vtensor<*,f32>, %s: !torch.vtensor<[],f32>) -> (!torch.vtensor<*,f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[5],f32>, !torch.vtensor<*,si64>, !torch.vtensor<[3,1],si64>, !torch.vtensor<[],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: reduction_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (ReduceSum, domain 'ai.onnx', opset 18): a runtime 'axes' input of runtime length with keepdims=0 needs a result type of a rank below the input's
  %0 = torch.operator "onnx.ReduceSum"(%x, %axes) {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<*,f32>
  // CHECK: reduction_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (ReduceMean, domain 'ai.onnx', opset 18): attribute 'axes' is not allowed from this opset on; axes are input 1
  %1 = torch.operator "onnx.ReduceMean"(%x) {torch.onnx.axes = [1 : si64], torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3],f32>
  // CHECK: reduction_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (ReduceMax, domain 'ai.onnx', opset 18): no 1 axes reduce input shape [3, 4] to the declared result shape
  %2 = torch.operator "onnx.ReduceMax"(%x, %one) {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[5],f32>
  // CHECK: reduction_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (ArgMax, domain 'ai.onnx', opset 18): input 0 needs a static rank
  %3 = torch.operator "onnx.ArgMax"(%u) : (!torch.vtensor<*,f32>) -> !torch.vtensor<*,si64>
  // CHECK: reduction_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (ArgMin, domain 'ai.onnx', opset 18): axis 2 is out of range for rank 2
  %4 = torch.operator "onnx.ArgMin"(%x) {torch.onnx.axis = 2 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,1],si64>
  // CHECK: reduction_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (CumSum, domain 'ai.onnx', opset 18): needs an input of rank >= 1
  %5 = torch.operator "onnx.CumSum"(%s, %one) : (!torch.vtensor<[],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[],f32>
  // CHECK: reduction_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (TopK, domain 'ai.onnx', opset 18): input 0 needs a static rank
  %6:2 = torch.operator "onnx.TopK"(%u, %one) : (!torch.vtensor<*,f32>, !torch.vtensor<[1],si64>) -> (!torch.vtensor<*,f32>, !torch.vtensor<*,si64>)
  return %0, %1, %2, %3, %4, %5 : !torch.vtensor<*,f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[5],f32>, !torch.vtensor<*,si64>, !torch.vtensor<[3,1],si64>, !torch.vtensor<[],f32>
}
// CHECK-NOT: error
