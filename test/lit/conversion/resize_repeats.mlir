// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Nearest Resize / Upsample by whole-number factors on a dynamic image size: per resized axis an
// unsqueeze, an expand of the unit dim and a prims.collapse of the two dims (indexing_resize/
// repeats.py), no gather and no size computed in float (IREE could not compile the interpolation
// before a padded convolution).

// A YOLO neck's Resize-13: constant scales (1, 1, 2, 2), asymmetric coordinates, floor.
// CHECK-LABEL: func.func @yolo_scales
// CHECK-NOT: torch.aten.__interpolate
// CHECK: %[[UNIT:.*]] = torch.aten.unsqueeze %arg0, %int3 : !torch.vtensor<[?,8,?,?],f32>, !torch.int -> !torch.vtensor<[?,8,?,1,?],f32>
// CHECK: %[[WIDE:.*]] = torch.aten.expand %[[UNIT]], {{.*}} -> !torch.vtensor<[?,8,?,2,?],f32>
// CHECK: %[[ROWS:.*]] = torch.prims.collapse %[[WIDE]], %{{.*}}, %{{.*}} : !torch.vtensor<[?,8,?,2,?],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,8,?,?],f32>
// CHECK: torch.aten.unsqueeze %[[ROWS]], %{{.*}} :
// CHECK: torch.aten.expand {{.*}} -> !torch.vtensor<[?,8,?,?,2],f32>
// CHECK: torch.prims.collapse {{.*}} : !torch.vtensor<[?,8,?,?,2],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,8,?,?],f32>
// CHECK-NOT: torch.aten.__interpolate
func.func @yolo_scales(%x: !torch.vtensor<[?,8,?,?],f32>) -> !torch.vtensor<[?,8,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %none = torch.constant.none
  %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %1 = torch.operator "onnx.Resize"(%x, %none, %0) {torch.onnx.coordinate_transformation_mode = "asymmetric", torch.onnx.mode = "nearest", torch.onnx.nearest_mode = "floor"} : (!torch.vtensor<[?,8,?,?],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,8,?,?],f32>
  return %1 : !torch.vtensor<[?,8,?,?],f32>
}

// -----

// Sizes Shape(x) * (1, 1, 2, 2) with the default half-pixel coordinates and round_prefer_floor
// (each output row still reads input row o // 2).
// CHECK-LABEL: func.func @sizes_from_shape
// CHECK-NOT: torch.aten.__interpolate
// CHECK: torch.prims.collapse {{.*}} : !torch.vtensor<[?,8,?,2,?],f32>
// CHECK: torch.prims.collapse {{.*}} : !torch.vtensor<[?,8,?,?,2],f32>
// CHECK-NOT: torch.aten.__interpolate
func.func @sizes_from_shape(%x: !torch.vtensor<[?,8,?,?],f32>) -> !torch.vtensor<[?,8,?,?],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %none = torch.constant.none
  %0 = torch.operator "onnx.Shape"(%x) : (!torch.vtensor<[?,8,?,?],f32>) -> !torch.vtensor<[4],si64>
  %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1, 1, 2, 2]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %2 = torch.operator "onnx.Mul"(%0, %1) : (!torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64>
  %3 = torch.operator "onnx.Resize"(%x, %none, %none, %2) {torch.onnx.mode = "nearest"} : (!torch.vtensor<[?,8,?,?],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,8,?,?],f32>
  return %3 : !torch.vtensor<[?,8,?,?],f32>
}

// -----

// Upsample-9 (asymmetric, floor) by (1, 1, 3, 1): only dim 2 is repeated.
// CHECK-LABEL: func.func @upsample_rows
// CHECK-NOT: torch.aten.__interpolate
// CHECK: torch.aten.expand {{.*}} -> !torch.vtensor<[?,8,?,3,?],f32>
// CHECK: torch.prims.collapse {{.*}} : !torch.vtensor<[?,8,?,3,?],f32>
// CHECK-NOT: torch.prims.collapse
func.func @upsample_rows(%x: !torch.vtensor<[?,8,?,?],f32>) -> !torch.vtensor<[?,8,?,?],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.0, 1.0, 3.0, 1.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %1 = torch.operator "onnx.Upsample"(%x, %0) {torch.onnx.mode = "nearest"} : (!torch.vtensor<[?,8,?,?],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,8,?,?],f32>
  return %1 : !torch.vtensor<[?,8,?,?],f32>
}

// -----

// A factor of 1.5, and round_prefer_ceil with asymmetric coordinates (output row 2i + 1 reads
// input row i + 1): the interpolation stays.
// CHECK-LABEL: func.func @not_repeats
// CHECK-NOT: torch.prims.collapse
// CHECK: torch.aten.__interpolate.size_list_scale_list %arg0
// CHECK: torch.aten.__interpolate.size_list_scale_list %arg0
func.func @not_repeats(%x: !torch.vtensor<[?,8,?,?],f32>) -> (!torch.vtensor<[?,8,?,?],f32>, !torch.vtensor<[?,8,?,?],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %none = torch.constant.none
  %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.0, 1.0, 1.5, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %1 = torch.operator "onnx.Resize"(%x, %none, %0) {torch.onnx.coordinate_transformation_mode = "asymmetric", torch.onnx.mode = "nearest", torch.onnx.nearest_mode = "floor"} : (!torch.vtensor<[?,8,?,?],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,8,?,?],f32>
  %2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %3 = torch.operator "onnx.Resize"(%x, %none, %2) {torch.onnx.coordinate_transformation_mode = "asymmetric", torch.onnx.mode = "nearest", torch.onnx.nearest_mode = "round_prefer_ceil"} : (!torch.vtensor<[?,8,?,?],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,8,?,?],f32>
  return %1, %3 : !torch.vtensor<[?,8,?,?],f32>, !torch.vtensor<[?,8,?,?],f32>
}
