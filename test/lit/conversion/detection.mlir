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
  // Beyond 64 boxes, the greedy loop itself: a tensor loop (its condition read from a 0-d tensor)
  // whose step keeps each group's best box still alive and drops the boxes it suppresses.
  // CHECK: %[[KEPT:.*]]:4 = torch.prim.Loop %int9223372036854775807, %{{.*}}, init(
  // CHECK: torch.aten.argmax {{.*}} -> !torch.vtensor<[1,1],si64>
  // CHECK: torch.prim.Loop.condition %{{.*}}, iter(%{{.*}} : !torch.vtensor<[1,70],i1>, !torch.vtensor<[1,70],si32>, !torch.vtensor<[1,1],si32>, !torch.vtensor<[],si32>)
  // The row count is the number kept, read at run time.
  // CHECK: %[[COUNT:.*]] = torch.aten.item {{.*}} : !torch.vtensor<[],si64> -> !torch.int
  // An si64 arange, cast: an si32 one lowers its length through i32 (detection.py's _greedy_steps).
  // CHECK: %[[ROWS:.*]] = torch.aten.arange %[[COUNT]], {{.*}} -> !torch.vtensor<[?],si64>
  // CHECK: torch.aten.to.dtype %[[ROWS]], {{.*}} -> !torch.vtensor<[?],si32>
  // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[?,3],si64>
  %0 = torch.operator "onnx.NonMaxSuppression"(%boxes, %scores, %max) : (!torch.vtensor<[1,70,4],f32>, !torch.vtensor<[1,1,70],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,3],si64>
  return %0 : !torch.vtensor<[?,3],si64>
}

// -----

// CHECK-LABEL: func.func @nms_dynamic_box_count
func.func @nms_dynamic_box_count(%boxes: !torch.vtensor<[1,?,4],f32>, %scores: !torch.vtensor<[1,2,?],f32>, %max: !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,3],si64> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // A box count known only at run time (Linalg): the same loop on [groups, ?] tensors.
  // CHECK: torch.prim.Loop.condition %{{.*}}, iter(%{{.*}} : !torch.vtensor<[2,?],i1>, !torch.vtensor<[2,?],si32>, !torch.vtensor<[2,1],si32>, !torch.vtensor<[],si32>)
  // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[?,3],si64>
  %0 = torch.operator "onnx.NonMaxSuppression"(%boxes, %scores, %max) : (!torch.vtensor<[1,?,4],f32>, !torch.vtensor<[1,2,?],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,3],si64>
  return %0 : !torch.vtensor<[?,3],si64>
}

