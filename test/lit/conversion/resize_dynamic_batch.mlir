// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Resize of static spatial extents with a dynamic batch, sizes Concat(Shape(x)[:2], [16, 16]) as
// SegFormer's decode head exports it. For TOSA (and StableHLO), which lower no interpolation of
// dynamic shape: by taps along each resized axis, the batch kept as `?` (the size check that
// Shape(x)[0] is x's own dim folds away).
// CHECK-LABEL: func.func @linear_dynamic_batch_for_tosa
// CHECK-NOT: torch.aten.__interpolate
// CHECK: torch.aten.index_select %arg0, %int2, {{.*}} -> !torch.vtensor<[?,4,16,8],f32>
// CHECK: torch.aten.mul.Tensor {{.*}} -> !torch.vtensor<[?,4,16,8],f32>
// CHECK: torch.aten.index_select {{.*}}, %int3, {{.*}} -> !torch.vtensor<[?,4,16,16],f32>
// CHECK-NOT: torch.aten.__interpolate
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @linear_dynamic_batch_for_tosa(%x: !torch.vtensor<[?,4,8,8],f32>) -> !torch.vtensor<[?,4,16,16],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %none = torch.constant.none
    %0 = torch.operator "onnx.Shape"(%x) {torch.onnx.end = 2 : si64} : (!torch.vtensor<[?,4,8,8],f32>) -> !torch.vtensor<[2],si64>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<16> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
    %2 = torch.operator "onnx.Concat"(%0, %1) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[4],si64>
    %3 = torch.operator "onnx.Resize"(%x, %none, %none, %2) {torch.onnx.mode = "linear"} : (!torch.vtensor<[?,4,8,8],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,4,16,16],f32>
    return %3 : !torch.vtensor<[?,4,16,16],f32>
  }
}

// -----

// The same on Linalg: torch-mlir's interpolation lowers a dynamic batch there; kept.
// CHECK-LABEL: func.func @linear_dynamic_batch_for_linalg
// CHECK: torch.aten.__interpolate.size_list_scale_list %arg0
func.func @linear_dynamic_batch_for_linalg(%x: !torch.vtensor<[?,4,8,8],f32>) -> !torch.vtensor<[?,4,16,16],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %none = torch.constant.none
  %0 = torch.operator "onnx.Shape"(%x) {torch.onnx.end = 2 : si64} : (!torch.vtensor<[?,4,8,8],f32>) -> !torch.vtensor<[2],si64>
  %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<16> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %2 = torch.operator "onnx.Concat"(%0, %1) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[4],si64>
  %3 = torch.operator "onnx.Resize"(%x, %none, %none, %2) {torch.onnx.mode = "linear"} : (!torch.vtensor<[?,4,8,8],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,4,16,16],f32>
  return %3 : !torch.vtensor<[?,4,16,16],f32>
}

// -----

// A dynamic batch and channel count on TOSA: TorchToTosa's gather (index_select) takes one
// dynamic dim, so each resized axis is a matmul with its constant interpolation matrix, the axis
// moved last and back.
// CHECK-LABEL: func.func @linear_dynamic_channels_for_tosa
// CHECK-NOT: torch.aten.index_select
// CHECK: %[[H:.*]] = torch.aten.transpose.int %arg0, %int2, %int3 : {{.*}} -> !torch.vtensor<[?,?,8,8],f32>
// CHECK: %[[HW:.*]] = torch.vtensor.literal({{.*}} : tensor<8x16xf32>)
// CHECK: %[[HM:.*]] = torch.aten.matmul %[[H]], %[[HW]] : {{.*}} -> !torch.vtensor<[?,?,8,16],f32>
// CHECK: %[[HB:.*]] = torch.aten.transpose.int %[[HM]], %{{.*}}, %{{.*}} : {{.*}} -> !torch.vtensor<[?,?,16,8],f32>
// CHECK: torch.aten.matmul %[[HB]], {{.*}} -> !torch.vtensor<[?,?,16,12],f32>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @linear_dynamic_channels_for_tosa(%x: !torch.vtensor<[?,?,8,8],f32>) -> !torch.vtensor<[?,?,16,12],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %none = torch.constant.none
    %0 = torch.operator "onnx.Shape"(%x) {torch.onnx.end = 2 : si64} : (!torch.vtensor<[?,?,8,8],f32>) -> !torch.vtensor<[2],si64>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[16, 12]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
    %2 = torch.operator "onnx.Concat"(%0, %1) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[4],si64>
    %3 = torch.operator "onnx.Resize"(%x, %none, %none, %2) {torch.onnx.mode = "linear"} : (!torch.vtensor<[?,?,8,8],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,?,16,12],f32>
    return %3 : !torch.vtensor<[?,?,16,12],f32>
  }
}

// -----

// Upsample-9 with constant scales and a dynamic batch for StableHLO: taps (nearest: selection only).
// CHECK-LABEL: func.func @upsample_dynamic_batch_for_stablehlo
// CHECK-NOT: torch.aten.__interpolate
// CHECK: torch.aten.index_select %arg0, %int2, {{.*}} -> !torch.vtensor<[?,4,16,8],f32>
// CHECK: torch.aten.index_select {{.*}}, %int3, {{.*}} -> !torch.vtensor<[?,4,16,16],f32>
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @upsample_dynamic_batch_for_stablehlo(%x: !torch.vtensor<[?,4,8,8],f32>) -> !torch.vtensor<[?,4,16,16],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
    %1 = torch.operator "onnx.Upsample"(%x, %0) {torch.onnx.mode = "nearest"} : (!torch.vtensor<[?,4,8,8],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,4,16,16],f32>
    return %1 : !torch.vtensor<[?,4,16,16],f32>
  }
}
