// Forms the nn patterns refuse, each with its reason, all reported in one run.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @refused(%x: !torch.vtensor<[1,3,?,?],f32>, %w: !torch.vtensor<[3,3,3,3],f32>, %dyn: !torch.vtensor<[?,?,?,?],f32>, %v: !torch.vtensor<[3],f32>, %m: !torch.vtensor<[2,3,4],f32>, %x5: !torch.vtensor<[1,1,2,2,2,2],f32>, %x3: !torch.vtensor<[1,1,4,4,4],f32>) -> (!torch.vtensor<[1,3,?,?],si64>, !torch.vtensor<[1,1,3,3,3],si64>, !torch.vtensor<[1,3,?,?],si64>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Gemm, domain 'ai.onnx', opset 18): input 0 must have rank 2, not 3
  %0 = torch.operator "onnx.Gemm"(%m, %m) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,4],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (MaxPool, domain 'ai.onnx', opset 18): ceil_mode with auto_pad SAME_UPPER on a dynamic spatial size is not supported; fix the size with --dim NAME=SIZE
  %1 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.ceil_mode = 1 : si64, torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,?,?],f32>) -> !torch.vtensor<[1,3,?,?],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Conv, domain 'ai.onnx', opset 18): auto_pad 'SAME' is not supported
  %2 = torch.operator "onnx.Conv"(%x, %w) {torch.onnx.auto_pad = "SAME"} : (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[3,3,3,3],f32>) -> !torch.vtensor<[1,3,?,?],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Conv, domain 'ai.onnx', opset 18): attribute 'kernel_shape' [5, 5] does not match the weight's spatial sizes [3, 3]
  %3 = torch.operator "onnx.Conv"(%x, %w) {torch.onnx.kernel_shape = [5 : si64, 5 : si64]} : (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[3,3,3,3],f32>) -> !torch.vtensor<[1,3,?,?],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (ConvTranspose, domain 'ai.onnx', opset 18): attribute 'output_shape' needs a static spatial input size (dim 2)
  %4 = torch.operator "onnx.ConvTranspose"(%x, %w) {torch.onnx.output_shape = [8 : si64, 8 : si64]} : (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[3,3,3,3],f32>) -> !torch.vtensor<[1,3,8,8],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (ConvTranspose, domain 'ai.onnx', opset 18): group 3 needs static input channels and weight sizes
  %5 = torch.operator "onnx.ConvTranspose"(%dyn, %w) {torch.onnx.group = 3 : si64} : (!torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[3,3,3,3],f32>) -> !torch.vtensor<[?,?,?,?],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (MaxPool, domain 'ai.onnx', opset 18): output Indices with pads [0, 0, 1, 1] (asymmetric or over half the kernel) needs a static input shape
  %6:2 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.pads = [0 : si64, 0 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,3,?,?],f32>) -> (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[1,3,?,?],si64>)
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (MaxPool, domain 'ai.onnx', opset 18): storage_order 1 with 3 spatial dims is not supported
  %7:2 = torch.operator "onnx.MaxPool"(%x3) {torch.onnx.kernel_shape = [2 : si64, 2 : si64, 2 : si64], torch.onnx.storage_order = 1 : si64} : (!torch.vtensor<[1,1,4,4,4],f32>) -> (!torch.vtensor<[1,1,3,3,3],f32>, !torch.vtensor<[1,1,3,3,3],si64>)
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (MaxPool, domain 'ai.onnx', opset 18): output Indices needs static channel and spatial sizes
  %8:2 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.kernel_shape = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,?,?],f32>) -> (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[1,3,?,?],si64>)
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (MaxPool, domain 'ai.onnx', opset 18): 4 spatial dims: only 1 to 3 are supported
  %9 = torch.operator "onnx.MaxPool"(%x5) {torch.onnx.kernel_shape = [2 : si64, 2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,2,2,2,2],f32>) -> !torch.vtensor<[1,1,1,1,1,1],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:9: error: unnamed node (AveragePool, domain 'ai.onnx', opset 18): ceil_mode with end pad 2, stride 2 and kernel 3 on spatial dim 2 needs its static size (the last window may start in the padding); fix it with --dim NAME=SIZE
  %10 = torch.operator "onnx.AveragePool"(%x) {torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.pads = [0 : si64, 0 : si64, 2 : si64, 2 : si64], torch.onnx.ceil_mode = 1 : si64} : (!torch.vtensor<[1,3,?,?],f32>) -> !torch.vtensor<[1,3,?,?],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:9: error: unnamed node (LpPool, domain 'ai.onnx', opset 18): attribute 'kernel_shape' [2] does not match input rank 4
  %11 = torch.operator "onnx.LpPool"(%x) {torch.onnx.kernel_shape = [2 : si64]} : (!torch.vtensor<[1,3,?,?],f32>) -> !torch.vtensor<[1,3,?,?],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:9: error: unnamed node (MaxRoiPool, domain 'ai.onnx', opset 18): attribute 'pooled_shape' [2] must have 2 values
  %12 = torch.operator "onnx.MaxRoiPool"(%x, %m) {torch.onnx.pooled_shape = [2 : si64]} : (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,2,2],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (MaxRoiPool, domain 'ai.onnx', opset 18): needs a static [N, C, H, W] input and static [K, 5] rois, not [1, 3, None, None] and [2, 3, 4]
  %roi = torch.operator "onnx.MaxRoiPool"(%x, %m) {torch.onnx.pooled_shape = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,2,2],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:9: error: unnamed node (GroupNormalization, domain 'ai.onnx', opset 18): per-group scale and bias (opset 18) need a static channel count (dim 1)
  %13 = torch.operator "onnx.GroupNormalization"(%dyn, %v, %v) {torch.onnx.num_groups = 3 : si64} : (!torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[?,?,?,?],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:9: error: unnamed node (GroupNormalization, domain 'ai.onnx', opset 18): num_groups 2 does not divide the 3 channels
  %14 = torch.operator "onnx.GroupNormalization"(%x, %v, %v) {torch.onnx.num_groups = 2 : si64} : (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,3,?,?],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:11: error: unnamed node (LayerNormalization, domain 'ai.onnx', opset 18): axis 3 is out of range for rank 3
  %15:3 = torch.operator "onnx.LayerNormalization"(%m, %v) {torch.onnx.axis = 3 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.none, !torch.none)
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:9: error: unnamed node (LpNormalization, domain 'ai.onnx', opset 18): p 3 is not supported: ONNX allows 1 or 2
  %16 = torch.operator "onnx.LpNormalization"(%m) {torch.onnx.p = 3 : si64} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:9: error: unnamed node (LRN, domain 'ai.onnx', opset 18): size 0 must be positive
  %17 = torch.operator "onnx.LRN"(%m) {torch.onnx.size = 0 : si64} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32>
  // CHECK: nn_diagnostics.mlir:[[# @LINE + 1]]:9: error: unnamed node (MeanVarianceNormalization, domain 'ai.onnx', opset 18): axes [0, 4] are out of range for rank 3
  %18 = torch.operator "onnx.MeanVarianceNormalization"(%m) {torch.onnx.axes = [0 : si64, 4 : si64]} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32>
  return %6#1, %7#1, %8#1 : !torch.vtensor<[1,3,?,?],si64>, !torch.vtensor<[1,1,3,3,3],si64>, !torch.vtensor<[1,3,?,?],si64>
}
// CHECK-NOT: error
