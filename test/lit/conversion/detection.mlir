// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @nms_static_count
func.func @nms_static_count(%boxes: !torch.vtensor<[1,3,4],f32>, %scores: !torch.vtensor<[1,2,3],f32>, %max: !torch.vtensor<[1],si64>, %iou: !torch.vtensor<[1],f32>, %score: !torch.vtensor<[1],f32>) -> !torch.vtensor<[4,3],si64> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // Three boxes: two suppression steps (a bmm each), then the kept boxes' ranks.
  // CHECK-COUNT-3: torch.aten.bmm {{.*}} : !torch.vtensor<[2,1,3],f32>, !torch.vtensor<[2,3,3],f32> -> !torch.vtensor<[2,1,3],f32>
  // CHECK: torch.aten.mm {{.*}} : !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,1],f32> -> !torch.vtensor<[2,1],f32>
  // The declared four rows, each the literal (batch, class, box) of the box in that row.
  // CHECK-NOT: torch.aten.item
  // CHECK: torch.aten.mm {{.*}} : !torch.vtensor<[4,6],f32>, !torch.vtensor<[6,3],f32> -> !torch.vtensor<[4,3],f32>
  // CHECK: return {{.*}} : !torch.vtensor<[4,3],si64>
  %0 = torch.operator "onnx.NonMaxSuppression"(%boxes, %scores, %max, %iou, %score) : (!torch.vtensor<[1,3,4],f32>, !torch.vtensor<[1,2,3],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[4,3],si64>
  return %0 : !torch.vtensor<[4,3],si64>
}

// -----

// CHECK-LABEL: func.func @nms_run_time_count
module attributes {onnx.opset_version = 10 : i64} {
  func.func @nms_run_time_count(%boxes: tensor<2x3x4xf32>, %scores: tensor<2x1x3xf32>, %max: tensor<1xi64>) -> tensor<?x3xi64> {
    // CHECK-COUNT-3: torch.aten.bmm
    // The row count is the number selected, read at run time.
    // CHECK: %[[COUNT:.*]] = torch.aten.item {{.*}} -> !torch.int
    // CHECK: torch.aten.arange %[[COUNT]], {{.*}} -> !torch.vtensor<[?],si64>
    // CHECK: torch.aten.mm {{.*}} : !torch.vtensor<[?,6],f32>, !torch.vtensor<[6,3],f32> -> !torch.vtensor<[?,3],f32>
    %none = "onnx.NoValue"() {value} : () -> none
    %0 = "onnx.NonMaxSuppression"(%boxes, %scores, %max, %none, %none) {center_point_box = 1 : si64} : (tensor<2x3x4xf32>, tensor<2x1x3xf32>, tensor<1xi64>, none, none) -> tensor<?x3xi64>
    return %0 : tensor<?x3xi64>
  }
}

// -----

// CHECK-LABEL: func.func @nms_greedy_loop
func.func @nms_greedy_loop(%boxes: !torch.vtensor<[1,70,4],f32>, %scores: !torch.vtensor<[1,1,70],f32>, %max: !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,3],si64> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // Beyond 64 boxes the greedy choice runs in a loop over the 70 precedence ranks.
  // CHECK: %[[KEEP:.*]] = torch.prim.Loop %int70{{.*}}, %true, init(%{{.*}}) {
  // CHECK: torch.aten.gather {{.*}} -> !torch.vtensor<[1,70,1],f32>
  // CHECK: torch.prim.Loop.condition %true, iter(%{{.*}} : !torch.vtensor<[1,1,70],f32>)
  // CHECK: } : (!torch.int, !torch.bool, !torch.vtensor<[1,1,70],f32>) -> !torch.vtensor<[1,1,70],f32>
  // CHECK: torch.aten.bmm %[[KEEP]]
  %0 = torch.operator "onnx.NonMaxSuppression"(%boxes, %scores, %max) : (!torch.vtensor<[1,70,4],f32>, !torch.vtensor<[1,1,70],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,3],si64>
  return %0 : !torch.vtensor<[?,3],si64>
}

