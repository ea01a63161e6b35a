// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @det_batch
func.func @det_batch(%x: !torch.vtensor<[?,3,3],f32>) -> !torch.vtensor<[?],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // One pivot search per column, the pivot row read by a bmm with its one-hot row.
  // CHECK: torch.aten.argmax {{.*}} : !torch.vtensor<[?,3],f32>, !torch.int, !torch.bool -> !torch.vtensor<[?],si64>
  // CHECK: torch.aten.bmm {{.*}} -> !torch.vtensor<[?,1,3],f32>
  // CHECK: torch.aten.argmax
  // CHECK: torch.aten.argmax
  // CHECK-NOT: torch.aten.argmax
  // CHECK: return {{.*}} : !torch.vtensor<[?],f32>
  %0 = torch.operator "onnx.Det"(%x) : (!torch.vtensor<[?,3,3],f32>) -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}

// -----

// CHECK-LABEL: func.func @affine_grid_2d
func.func @affine_grid_2d(%theta: !torch.vtensor<[?,2,3],f32>, %size: !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,5,6,2],f32> attributes {torch.onnx_meta.opset_version = 20 : si64} {
  // CHECK: %[[BASE:.*]] = torch.vtensor.literal(dense<{{.*}}> : tensor<30x3xf32>)
  // CHECK: torch.aten.bmm {{.*}} : !torch.vtensor<[?,30,3],f32>, !torch.vtensor<[?,3,2],f32> -> !torch.vtensor<[?,30,2],f32>
  // CHECK: return {{.*}} : !torch.vtensor<[?,5,6,2],f32>
  %0 = torch.operator "onnx.AffineGrid"(%theta, %size) {torch.onnx.align_corners = 1 : si64} : (!torch.vtensor<[?,2,3],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,5,6,2],f32>
  return %0 : !torch.vtensor<[?,5,6,2],f32>
}
