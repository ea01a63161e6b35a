// ai.onnx.ml TreeEnsemble (version 5): a walk of every tree, one depth level per step, with
// gathers from constant tables (interior nodes, then leaves that point to themselves).
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Three interior nodes (LEQ, MEMBER, GT) of depth 2, four leaves, two targets, SUM. Table lookups
// are index_selects at the flattened positions.
// CHECK-LABEL: func.func @tree_ensemble
func.func @tree_ensemble(%x: !torch.vtensor<[?,2],f32>) -> !torch.vtensor<[?,2],f32> attributes {torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 5 : si64}} {
  // CHECK: %[[ROOTS:.*]] = torch.vtensor.literal(dense<0> : tensor<1xsi64>)
  // CHECK: %[[START:.*]] = torch.aten.broadcast_to %{{.*}} -> !torch.vtensor<[?,1],si64>
  // The features of the nodes, then a 0 per leaf.
  // CHECK: %[[FLAT:.*]] = torch.aten.flatten.using_ints %[[START]]
  // CHECK: %[[FEATURES:.*]] = torch.vtensor.literal(dense<[0, 1, 0, 0, 0, 0, 0]> : tensor<7xsi64>)
  // CHECK: %[[PICKED:.*]] = torch.aten.index_select %[[FEATURES]], %{{.*}}, %[[FLAT]] : !torch.vtensor<[7],si64>, !torch.int, !torch.vtensor<[?],si64> -> !torch.vtensor<[?],si64>
  // CHECK: %[[FEATURE:.*]] = torch.aten.reshape %[[PICKED]], %{{.*}} -> !torch.vtensor<[?,1],si64>
  // CHECK: %[[VALUE:.*]] = torch.aten.gather %arg0, %{{.*}}, %[[FEATURE]], %{{.*}} -> !torch.vtensor<[?,1],f32>
  // The mode of each entry picks the comparison.
  // CHECK: torch.vtensor.literal(dense<[0, 6, 3, 0, 0, 0, 0]> : tensor<7xsi64>)
  // CHECK: torch.aten.le.Tensor %[[VALUE]]
  // CHECK: torch.aten.gt.Tensor %[[VALUE]]
  // A MEMBER node's set, one row of members per gather.
  // CHECK: torch.vtensor.literal(dense<[0x7FC00000, 1.000000e+00, 0x7FC00000
  // CHECK: torch.aten.eq.Tensor %[[VALUE]]
  // CHECK: torch.vtensor.literal(dense<[0x7FC00000, 2.000000e+00, 0x7FC00000
  // CHECK: torch.aten.eq.Tensor %[[VALUE]]
  // The successors: a leaf (entries 3..6) is its own.
  // CHECK: torch.vtensor.literal(dense<[1, 3, 4, 3, 4, 5, 6]> : tensor<7xsi64>)
  // CHECK: torch.vtensor.literal(dense<[2, 5, 6, 3, 4, 5, 6]> : tensor<7xsi64>)
  // CHECK: %[[NEXT:.*]] = torch.aten.where.self
  // Depth 2: a second step.
  // CHECK: torch.aten.flatten.using_ints %[[NEXT]]
  // CHECK: %[[LAST:.*]] = torch.aten.where.self
  // CHECK: %[[LEAF:.*]] = torch.aten.sub.Scalar %[[LAST]], %{{.*}}, %{{.*}} : !torch.vtensor<[?,1],si64>
  // CHECK-NOT: torch.aten.where.self
  // Each leaf's row of weights per target, gathered at the leaves reached, summed over the trees.
  // CHECK: %[[WEIGHTS:.*]] = torch.vtensor.literal(dense<{{\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 2.000000e+00], [3.000000e+00, 0.000000e+00], [0.000000e+00, 4.000000e+00]]> : tensor<4x2xf32>)
  // CHECK: %[[ROWS:.*]] = torch.aten.index_select %[[WEIGHTS]], {{.*}} -> !torch.vtensor<[?,2],f32>
  // CHECK: %[[SPREAD:.*]] = torch.aten.reshape %[[ROWS]], {{.*}} -> !torch.vtensor<[?,1,2],f32>
  // CHECK: torch.aten.sum.dim_IntList %[[SPREAD]], {{.*}} -> !torch.vtensor<[?,2],f32>
  %0 = torch.operator "ai.onnx.ml.TreeEnsemble"(%x) {torch.onnx.aggregate_function = 1 : si64, torch.onnx.leaf_targetids = [0 : si64, 1 : si64, 0 : si64, 1 : si64], torch.onnx.leaf_weights = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>, torch.onnx.membership_values = dense<[1.0, 2.0, 0x7FC00000]> : tensor<3xf32>, torch.onnx.n_targets = 2 : si64, torch.onnx.nodes_falseleafs = [0 : si64, 1 : si64, 1 : si64], torch.onnx.nodes_falsenodeids = [2 : si64, 2 : si64, 3 : si64], torch.onnx.nodes_featureids = [0 : si64, 1 : si64, 0 : si64], torch.onnx.nodes_modes = dense<[0, 6, 3]> : tensor<3xui8>, torch.onnx.nodes_splits = dense<[1.5, 0x7FC00000, 2.5]> : tensor<3xf32>, torch.onnx.nodes_trueleafs = [0 : si64, 1 : si64, 1 : si64], torch.onnx.nodes_truenodeids = [1 : si64, 0 : si64, 1 : si64], torch.onnx.post_transform = 0 : si64, torch.onnx.tree_roots = [0 : si64]} : (!torch.vtensor<[?,2],f32>) -> !torch.vtensor<[?,2],f32>
  return %0 : !torch.vtensor<[?,2],f32>
}

// -----

// Two single-node trees, MAX and SOFTMAX: the maximum starts at the lowest float.
// CHECK-LABEL: func.func @tree_ensemble_max_softmax
func.func @tree_ensemble_max_softmax(%x: !torch.vtensor<[3,1],f64>) -> !torch.vtensor<[3,2],f64> attributes {torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 5 : si64}} {
  // CHECK: torch.aten.ge.Tensor
  // CHECK: %[[HAS:.*]] = torch.aten.reshape {{.*}} -> !torch.vtensor<[3,2,2],i1>
  // CHECK: %[[LOWEST:.*]] = torch.constant.float -1.7976931348623157E+308
  // CHECK: torch.aten.where.ScalarOther %[[HAS]], %{{.*}}, %[[LOWEST]]
  // CHECK: %[[MAX:.*]] = torch.aten.amax {{.*}} -> !torch.vtensor<[3,2],f64>
  // A target no leaf reaches is 0, as in onnxruntime.
  // CHECK: %[[REACHED:.*]] = torch.aten.any.dim {{.*}} -> !torch.vtensor<[3,2],i1>
  // CHECK: %[[SCORES:.*]] = torch.aten.where.ScalarOther %[[REACHED]], %[[MAX]]
  // CHECK: torch.aten.softmax.int %[[SCORES]]
  %0 = torch.operator "ai.onnx.ml.TreeEnsemble"(%x) {torch.onnx.aggregate_function = 3 : si64, torch.onnx.leaf_targetids = [0 : si64, 1 : si64, 0 : si64, 0 : si64], torch.onnx.leaf_weights = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>, torch.onnx.n_targets = 2 : si64, torch.onnx.nodes_falseleafs = [1 : si64, 1 : si64], torch.onnx.nodes_falsenodeids = [1 : si64, 3 : si64], torch.onnx.nodes_featureids = [0 : si64, 0 : si64], torch.onnx.nodes_modes = dense<[2, 2]> : tensor<2xui8>, torch.onnx.nodes_splits = dense<[0.0, 1.0]> : tensor<2xf64>, torch.onnx.nodes_trueleafs = [1 : si64, 1 : si64], torch.onnx.nodes_truenodeids = [0 : si64, 2 : si64], torch.onnx.post_transform = 1 : si64, torch.onnx.tree_roots = [0 : si64, 1 : si64]} : (!torch.vtensor<[3,1],f64>) -> !torch.vtensor<[3,2],f64>
  return %0 : !torch.vtensor<[3,2],f64>
}

// -----

// TreeEnsembleRegressor since 1: nodes named by (tree id, node id), LEAF nodes, weights by
// (tree, node, target); tree 1 is a single leaf (its walk starts and stays there). AVERAGE over
// the two trees, plus base_values.
// CHECK-LABEL: func.func @tree_ensemble_regressor
func.func @tree_ensemble_regressor(%x: !torch.vtensor<[?,2],f32>) -> !torch.vtensor<[?,1],f32> attributes {torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 3 : si64}} {
  // Entries: node (0, 0), then the leaves (0, 1), (0, 2) and (1, 0); the roots are entries 0 and 3.
  // CHECK: torch.vtensor.literal(dense<[0, 3]> : tensor<2xsi64>)
  // CHECK: torch.vtensor.literal(dense<[1, 0, 0, 0]> : tensor<4xsi64>)
  // CHECK: torch.aten.lt.Tensor
  // CHECK: torch.vtensor.literal(dense<[1, 1, 2, 3]> : tensor<4xsi64>)
  // CHECK: torch.vtensor.literal(dense<[2, 1, 2, 3]> : tensor<4xsi64>)
  // CHECK: torch.vtensor.literal(dense<{{\[\[}}1.000000e+00], [2.000000e+00], [5.000000e-01]]> : tensor<3x1xf32>)
  // CHECK: %[[SUM:.*]] = torch.aten.sum.dim_IntList {{.*}} -> !torch.vtensor<[?,1],f32>
  // CHECK: %[[MEAN:.*]] = torch.aten.div.Scalar %[[SUM]]
  // CHECK: %[[BASE:.*]] = torch.vtensor.literal(dense<1.000000e+01> : tensor<1xf32>)
  // CHECK: torch.aten.add.Tensor %[[MEAN]], %[[BASE]]
  %0 = torch.operator "ai.onnx.ml.TreeEnsembleRegressor"(%x) {torch.onnx.aggregate_function = "AVERAGE", torch.onnx.base_values = [1.000000e+01 : f32], torch.onnx.n_targets = 1 : si64, torch.onnx.nodes_falsenodeids = [2 : si64, 0 : si64, 0 : si64, 0 : si64], torch.onnx.nodes_featureids = [1 : si64, 0 : si64, 0 : si64, 0 : si64], torch.onnx.nodes_modes = ["BRANCH_LT", "LEAF", "LEAF", "LEAF"], torch.onnx.nodes_nodeids = [0 : si64, 1 : si64, 2 : si64, 0 : si64], torch.onnx.nodes_treeids = [0 : si64, 0 : si64, 0 : si64, 1 : si64], torch.onnx.nodes_truenodeids = [1 : si64, 0 : si64, 0 : si64, 0 : si64], torch.onnx.nodes_values = [5.000000e-01 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32], torch.onnx.target_ids = [0 : si64, 0 : si64, 0 : si64], torch.onnx.target_nodeids = [1 : si64, 2 : si64, 0 : si64], torch.onnx.target_treeids = [0 : si64, 0 : si64, 1 : si64], torch.onnx.target_weights = [1.000000e+00 : f32, 2.000000e+00 : f32, 5.000000e-01 : f32]} : (!torch.vtensor<[?,2],f32>) -> !torch.vtensor<[?,1],f32>
  return %0 : !torch.vtensor<[?,1],f32>
}
