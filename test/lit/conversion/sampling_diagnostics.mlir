// Forms the sampling, detection, nn_image and linear_algebra patterns refuse, each with its reason.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @refused(%x5: !torch.vtensor<[1,1,2,3,4],f32>, %g5: !torch.vtensor<[1,2,2,2,3],f32>, %xd: !torch.vtensor<[1,1,?,?],f32>, %g4: !torch.vtensor<[1,2,2,2],f32>, %x: !torch.vtensor<[1,1,8,8],f32>, %rois: !torch.vtensor<[2,4],f32>, %batch: !torch.vtensor<[2],si64>, %boxes: !torch.vtensor<[?,3,4],f32>, %scores: !torch.vtensor<[?,1,3],f32>, %max: !torch.vtensor<[1],si64>, %m: !torch.vtensor<[2,3],f32>, %cols: !torch.vtensor<[1,7,5],f32>, %shape: !torch.vtensor<[2],si64>, %dyn: !torch.vtensor<[?,4],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: sampling_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (GridSample, domain 'ai.onnx', opset 18): GridSample-16 takes a 4-D input, not rank 5
  %0 = torch.operator "onnx.GridSample"(%x5, %g5) : (!torch.vtensor<[1,1,2,3,4],f32>, !torch.vtensor<[1,2,2,2,3],f32>) -> !torch.vtensor<[1,1,2,2,2],f32>
  // CHECK: sampling_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (GridSample, domain 'ai.onnx', opset 18): mode 'linear' is not one of 'bilinear', 'nearest', 'bicubic'
  %2 = torch.operator "onnx.GridSample"(%x, %g4) {torch.onnx.mode = "linear"} : (!torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,2,2,2],f32>) -> !torch.vtensor<[1,1,2,2],f32>
  // CHECK: sampling_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (RoiAlign, domain 'ai.onnx', opset 18): sampling_ratio 0 (as many samples as the region is pixels high and wide, different per region) is not supported: set a positive sampling_ratio
  %3 = torch.operator "onnx.RoiAlign"(%x, %rois, %batch) : (!torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,1,1,1],f32>
  // CHECK: sampling_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (NonMaxSuppression, domain 'ai.onnx', opset 18): boxes [None, 3, 4] and scores [None, 1, 3]: the batch and class counts must be static (fix them with --dim NAME=SIZE); the box count may be dynamic
  %4 = torch.operator "onnx.NonMaxSuppression"(%boxes, %scores, %max) : (!torch.vtensor<[?,3,4],f32>, !torch.vtensor<[?,1,3],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,3],si64>
  // CHECK: sampling_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Det, domain 'ai.onnx', opset 18): input of shape [2, 3] is not a batch of square matrices of static size
  %5 = torch.operator "onnx.Det"(%m) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[],f32>
  // CHECK: sampling_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (Col2Im, domain 'ai.onnx', opset 18): 'block_shape' is computed at run time and 0 block shapes fit the static shapes (1 to 4 can be told apart at run time): make it a constant
  %6 = torch.operator "onnx.Col2Im"(%cols, %shape, %shape) : (!torch.vtensor<[1,7,5],f32>, !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[1,1,5,5],f32>
  // CHECK: sampling_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (CenterCropPad, domain 'ai.onnx', opset 18): 'shape' must be a constant, or the result's sizes on the axes static
  %7 = torch.operator "onnx.CenterCropPad"(%dyn, %shape) : (!torch.vtensor<[?,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],f32>
  return
}
