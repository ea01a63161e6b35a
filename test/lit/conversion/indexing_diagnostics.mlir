// Indexing forms the patterns refuse, each with its reason, all reported in one run.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @refused_indexing(%x: !torch.vtensor<[3,3],f32>, %i: !torch.vtensor<[2,?],si64>, %u: !torch.vtensor<[2,3],f32>, %s: !torch.vtensor<[3],si64>) -> (!torch.vtensor<[3,3],f32>, !torch.vtensor<[?],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Gather, domain 'ai.onnx', opset 18): axis 2 is out of range for rank 2
  %0 = torch.operator "onnx.Gather"(%x, %s) {torch.onnx.axis = 2 : si64} : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3,3],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (GatherND, domain 'ai.onnx', opset 18): needs a static last dimension of indices (the index tuple length)
  %1 = torch.operator "onnx.GatherND"(%x, %i) : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[2,?],si64>) -> !torch.vtensor<[?],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (ScatterElements, domain 'ai.onnx', opset 18): reduction 'mean' is not one of 'none', 'add', 'mul', 'max', 'min'
  %2 = torch.operator "onnx.ScatterElements"(%x, %i, %u) {torch.onnx.reduction = "mean"} : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[2,?],si64>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[3,3],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (ScatterND, domain 'ai.onnx', opset 18): needs a static last dimension of indices (the index tuple length)
  %3 = torch.operator "onnx.ScatterND"(%x, %i, %u) : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[2,?],si64>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[3,3],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (ReverseSequence, domain 'ai.onnx', opset 18): batch_axis 0 and time_axis 0 must be 0 and 1
  %4 = torch.operator "onnx.ReverseSequence"(%x, %s) {torch.onnx.time_axis = 0 : si64, torch.onnx.batch_axis = 0 : si64} : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3,3],f32>
  return %0, %1, %2, %3, %4 : !torch.vtensor<[3,3],f32>, !torch.vtensor<[?],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>
}

func.func @refused_resize(%x: !torch.vtensor<[1,1,4,4],f32>, %roi: !torch.vtensor<[8],f32>, %scales: !torch.vtensor<[4],f32>, %sizes: !torch.vtensor<[4],si64>, %v: !torch.vtensor<[4],f32>, %xi: !torch.vtensor<[1,1,4,4],ui8>) -> (!torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?],f32>) attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %none = torch.constant.none
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Resize, domain 'ai.onnx', opset 19): coordinate_transformation_mode 'tf_crop_and_resize' needs static input extents and a known output size on the resized axes
  %0 = torch.operator "onnx.Resize"(%x, %roi, %scales) {torch.onnx.coordinate_transformation_mode = "tf_crop_and_resize", torch.onnx.mode = "linear"} : (!torch.vtensor<[1,1,4,4],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,?,?,?],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Resize, domain 'ai.onnx', opset 19): antialias=1 with mode 'linear' needs static input extents and a known output size on the resized axes
  %1 = torch.operator "onnx.Resize"(%x, %none, %scales) {torch.onnx.antialias = 1 : si64, torch.onnx.mode = "linear"} : (!torch.vtensor<[1,1,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,?,?,?],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Resize, domain 'ai.onnx', opset 19): cubic_coeff_a -0.5 needs static input extents and a known output size on the resized axes (only -0.75 otherwise)
  %2 = torch.operator "onnx.Resize"(%x, %none, %scales) {torch.onnx.cubic_coeff_a = -5.000000e-01 : f32, torch.onnx.mode = "cubic"} : (!torch.vtensor<[1,1,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,?,?,?],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Resize, domain 'ai.onnx', opset 19): exclude_outside=1 needs static input extents and a known output size on the resized axes
  %3 = torch.operator "onnx.Resize"(%x, %none, %scales) {torch.onnx.exclude_outside = 1 : si64, torch.onnx.mode = "cubic"} : (!torch.vtensor<[1,1,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,?,?,?],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Resize, domain 'ai.onnx', opset 19): keep_aspect_ratio_policy 'not_larger' needs static input extents and a known output size on the resized axes
  %4 = torch.operator "onnx.Resize"(%x, %none, %none, %sizes) {torch.onnx.keep_aspect_ratio_policy = "not_larger"} : (!torch.vtensor<[1,1,4,4],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,?,?,?],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Resize, domain 'ai.onnx', opset 19): mode 'area' is not one of 'nearest', 'linear', 'cubic'
  %5 = torch.operator "onnx.Resize"(%x, %none, %scales) {torch.onnx.mode = "area"} : (!torch.vtensor<[1,1,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,?,?,?],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Resize, domain 'ai.onnx', opset 19): input X needs rank >= 3 (batch, channel, spatial...), has rank 1
  %6 = torch.operator "onnx.Resize"(%v, %none, %scales) : (!torch.vtensor<[4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?],f32>
  %half = torch.vtensor.literal(dense<[1.0, 1.0, 0.5, 0.5]> : tensor<4xf32>) : !torch.vtensor<[4],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Resize, domain 'ai.onnx', opset 19): mode 'linear' on ui8 input: interpolation needs a float input
  %8 = torch.operator "onnx.Resize"(%xi, %none, %half) {torch.onnx.mode = "linear"} : (!torch.vtensor<[1,1,4,4],ui8>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,2,2],ui8>
  return %0, %1, %2, %3, %4, %5, %6 : !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?],f32>
}

func.func @refused_upsample(%x: !torch.vtensor<[1,1,4,4],f32>) -> (!torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>) attributes {torch.onnx_meta.opset_version = 8 : si64} {
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Upsample, domain 'ai.onnx', opset 8): resizing dimension 0 or 1 (batch or channel) is not supported: scales [1.0, 2.0]
  %0 = torch.operator "onnx.Upsample"(%x) {torch.onnx.scales = [1.0 : f32, 2.0 : f32, 2.0 : f32, 2.0 : f32]} : (!torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[?,?,?,?],f32>
  // CHECK: indexing_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Upsample, domain 'ai.onnx', opset 8): mode 'cubic' is not one of 'nearest', 'linear'
  %1 = torch.operator "onnx.Upsample"(%x) {torch.onnx.mode = "cubic", torch.onnx.scales = [1.0 : f32, 1.0 : f32, 2.0 : f32, 2.0 : f32]} : (!torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[?,?,?,?],f32>
  return %0, %1 : !torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>
}
// CHECK-NOT: error
