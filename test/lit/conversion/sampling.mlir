// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @grid_sample_linear_zeros
func.func @grid_sample_linear_zeros(%x: !torch.vtensor<[?,3,5,6],f32>, %grid: !torch.vtensor<[?,4,2,2],f32>) -> !torch.vtensor<[?,3,4,2],f32> attributes {torch.onnx_meta.opset_version = 20 : si64} {
  // Two taps per dim, stacked and combined by broadcasting: one gather of all 2 x 2 taps.
  // CHECK: torch.aten.floor {{.*}} -> !torch.vtensor<[?,8],f32>
  // CHECK: torch.aten.stack {{.*}} -> !torch.vtensor<[?,2,8],f32>
  // CHECK: torch.aten.gather {{.*}} : !torch.vtensor<[?,3,30],f32>, !torch.int, !torch.vtensor<[?,3,32],si64>, !torch.bool -> !torch.vtensor<[?,3,32],f32>
  // CHECK: torch.aten.sum.dim_IntList {{.*}} : !torch.vtensor<[?,3,4,8],f32>, {{.*}} -> !torch.vtensor<[?,3,8],f32>
  // CHECK: return {{.*}} : !torch.vtensor<[?,3,4,2],f32>
  %0 = torch.operator "onnx.GridSample"(%x, %grid) {torch.onnx.mode = "linear", torch.onnx.padding_mode = "zeros"} : (!torch.vtensor<[?,3,5,6],f32>, !torch.vtensor<[?,4,2,2],f32>) -> !torch.vtensor<[?,3,4,2],f32>
  return %0 : !torch.vtensor<[?,3,4,2],f32>
}

// -----

// CHECK-LABEL: func.func @grid_sample_16_bicubic_reflection
func.func @grid_sample_16_bicubic_reflection(%x: !torch.vtensor<[1,1,4,4],f32>, %grid: !torch.vtensor<[1,2,2,2],f32>) -> !torch.vtensor<[1,1,2,2],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  // 4 x 4 cubic taps, each mirrored at the borders.
  // CHECK: torch.aten.stack {{.*}} -> !torch.vtensor<[1,4,4],f32>
  // CHECK: torch.aten.gather {{.*}} : !torch.vtensor<[1,1,16],f32>, !torch.int, !torch.vtensor<[1,1,64],si64>, !torch.bool -> !torch.vtensor<[1,1,64],f32>
  // CHECK: torch.aten.sum.dim_IntList {{.*}} : !torch.vtensor<[1,1,16,4],f32>, {{.*}} -> !torch.vtensor<[1,1,4],f32>
  %0 = torch.operator "onnx.GridSample"(%x, %grid) {torch.onnx.mode = "bicubic", torch.onnx.padding_mode = "reflection", torch.onnx.align_corners = 1 : si64} : (!torch.vtensor<[1,1,4,4],f32>, !torch.vtensor<[1,2,2,2],f32>) -> !torch.vtensor<[1,1,2,2],f32>
  return %0 : !torch.vtensor<[1,1,2,2],f32>
}

// -----

// CHECK-LABEL: func.func @grid_sample_nearest_3d
module attributes {onnx.opset_version = 22 : i64} {
  func.func @grid_sample_nearest_3d(%x: tensor<1x2x3x4x5xf32>, %grid: tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32> {
    // One tap per dim: a single gather, no weights.
    // CHECK: torch.aten.gather {{.*}} : !torch.vtensor<[1,2,60],f32>, !torch.int, !torch.vtensor<[1,2,8],si64>, !torch.bool -> !torch.vtensor<[1,2,8],f32>
    // CHECK-NOT: torch.aten.sum.dim_IntList
    // CHECK: return
    %0 = "onnx.GridSample"(%x, %grid) {mode = "nearest", padding_mode = "border"} : (tensor<1x2x3x4x5xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32>
    return %0 : tensor<1x2x2x2x2xf32>
  }
}

// -----

// CHECK-LABEL: func.func @roi_align_10_max
func.func @roi_align_10_max(%x: !torch.vtensor<[1,2,8,8],f32>, %rois: !torch.vtensor<[?,4],f32>, %batch: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,2,2,3],f32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  // CHECK: torch.aten.index_select %arg0, {{.*}}, %arg2 : {{.*}} -> !torch.vtensor<[?,2,8,8],f32>
  // CHECK-COUNT-4: torch.aten.gather {{.*}} -> !torch.vtensor<[?,2,24],f32>
  // CHECK: torch.aten.amax {{.*}} : !torch.vtensor<[?,2,2,3,4],f32>, !torch.list<int>, !torch.bool -> !torch.vtensor<[?,2,2,3],f32>
  %0 = torch.operator "onnx.RoiAlign"(%x, %rois, %batch) {torch.onnx.mode = "max", torch.onnx.output_height = 2 : si64, torch.onnx.output_width = 3 : si64, torch.onnx.sampling_ratio = 2 : si64} : (!torch.vtensor<[1,2,8,8],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,2,2,3],f32>
  return %0 : !torch.vtensor<[?,2,2,3],f32>
}

// -----

// CHECK-LABEL: func.func @roi_align_16_half_pixel
func.func @roi_align_16_half_pixel(%x: !torch.vtensor<[1,2,8,8],f32>, %rois: !torch.vtensor<[3,4],f32>, %batch: !torch.vtensor<[3],si64>) -> !torch.vtensor<[3,2,2,2],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  // CHECK: %[[HALF:.*]] = torch.constant.float 5.000000e-01
  // CHECK: torch.aten.sub.Scalar {{.*}}, %[[HALF]]
  // CHECK-COUNT-4: torch.aten.gather {{.*}} -> !torch.vtensor<[3,2,4],f32>
  // CHECK: torch.aten.sum.dim_IntList {{.*}} : !torch.vtensor<[3,2,2,2,1],f32>, {{.*}} -> !torch.vtensor<[3,2,2,2],f32>
  %0 = torch.operator "onnx.RoiAlign"(%x, %rois, %batch) {torch.onnx.output_height = 2 : si64, torch.onnx.output_width = 2 : si64, torch.onnx.sampling_ratio = 1 : si64} : (!torch.vtensor<[1,2,8,8],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3,2,2,2],f32>
  return %0 : !torch.vtensor<[3,2,2,2],f32>
}

// -----

// CHECK-LABEL: func.func @deform_conv_offset_groups
func.func @deform_conv_offset_groups(%x: !torch.vtensor<[?,2,3,3],f32>, %w: !torch.vtensor<[1,2,2,2],f32>, %offset: !torch.vtensor<[?,16,2,2],f32>) -> !torch.vtensor<[?,1,2,2],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  // One gather of the 2 x 2 bilinear taps of all 4 kernel taps x 4 outputs per offset group, then one bmm with W.
  // CHECK-COUNT-2: torch.aten.gather {{.*}} : !torch.vtensor<[?,1,9],f32>, !torch.int, !torch.vtensor<[?,1,64],si64>, !torch.bool -> !torch.vtensor<[?,1,64],f32>
  // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[?,2,16],f32>
  // CHECK: torch.aten.bmm {{.*}} : !torch.vtensor<[?,1,8],f32>, !torch.vtensor<[?,8,4],f32> -> !torch.vtensor<[?,1,4],f32>
  // CHECK: return {{.*}} : !torch.vtensor<[?,1,2,2],f32>
  %0 = torch.operator "onnx.DeformConv"(%x, %w, %offset) {torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.offset_group = 2 : si64} : (!torch.vtensor<[?,2,3,3],f32>, !torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[?,16,2,2],f32>) -> !torch.vtensor<[?,1,2,2],f32>
  return %0 : !torch.vtensor<[?,1,2,2],f32>
}
