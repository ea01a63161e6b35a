// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s

// CHECK: error: node 't0' (TreeEnsemble, domain 'ai.onnx.ml', opset 5): the trees have a cycle through node 0
func.func @cycle(%x: !torch.vtensor<[3,1],f32>) -> !torch.vtensor<[3,1],f32> attributes {torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 5 : si64}} {
  %0 = torch.operator "ai.onnx.ml.TreeEnsemble"(%x) {torch.onnx.leaf_targetids = [0 : si64], torch.onnx.leaf_weights = dense<[1.0]> : tensor<1xf32>, torch.onnx.n_targets = 1 : si64, torch.onnx.nodes_falseleafs = [1 : si64], torch.onnx.nodes_falsenodeids = [0 : si64], torch.onnx.nodes_featureids = [0 : si64], torch.onnx.nodes_modes = dense<[0]> : tensor<1xui8>, torch.onnx.nodes_splits = dense<[0.0]> : tensor<1xf32>, torch.onnx.nodes_trueleafs = [0 : si64], torch.onnx.nodes_truenodeids = [0 : si64], torch.onnx.tree_roots = [0 : si64]} : (!torch.vtensor<[3,1],f32>) -> !torch.vtensor<[3,1],f32> loc("t0")
  return %0 : !torch.vtensor<[3,1],f32>
}

// -----

// CHECK: error: node 't1' (TreeEnsemble, domain 'ai.onnx.ml', opset 5): post_transform 9 is not one of NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT (0..4)
func.func @unknown_post_transform(%x: !torch.vtensor<[3,1],f32>) -> !torch.vtensor<[3,1],f32> attributes {torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 5 : si64}} {
  %0 = torch.operator "ai.onnx.ml.TreeEnsemble"(%x) {torch.onnx.leaf_targetids = [0 : si64], torch.onnx.leaf_weights = dense<[1.0]> : tensor<1xf32>, torch.onnx.n_targets = 1 : si64, torch.onnx.nodes_falseleafs = [1 : si64], torch.onnx.nodes_falsenodeids = [0 : si64], torch.onnx.nodes_featureids = [0 : si64], torch.onnx.nodes_modes = dense<[0]> : tensor<1xui8>, torch.onnx.nodes_splits = dense<[0.0]> : tensor<1xf32>, torch.onnx.nodes_trueleafs = [1 : si64], torch.onnx.nodes_truenodeids = [0 : si64], torch.onnx.post_transform = 9 : si64, torch.onnx.tree_roots = [0 : si64]} : (!torch.vtensor<[3,1],f32>) -> !torch.vtensor<[3,1],f32> loc("t1")
  return %0 : !torch.vtensor<[3,1],f32>
}
