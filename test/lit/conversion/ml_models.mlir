// ai.onnx.ml models as skl2onnx writes them (imported by our importer, whose ml_types gives the
// result types): Scaler, Normalizer, LinearClassifier, SVMRegressor, SVMClassifier,
// TreeEnsembleClassifier, LabelEncoder.
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @scaler
func.func @scaler(%arg0: !torch.vtensor<[?,2],f64>) -> !torch.vtensor<[?,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 1 : si64}} {
  // CHECK: %[[X:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[?,2],f32>
  // CHECK: %[[OFFSET:.*]] = torch.vtensor.literal(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>)
  // CHECK: %[[SHIFTED:.*]] = torch.aten.sub.Tensor %[[X]], %[[OFFSET]]
  // CHECK: %[[SCALE:.*]] = torch.vtensor.literal(dense<[5.000000e-01, 4.000000e+00]> : tensor<2xf32>)
  // CHECK: torch.aten.mul.Tensor %[[SHIFTED]], %[[SCALE]] : !torch.vtensor<[?,2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[?,2],f32>
  %0 = torch.operator "ai.onnx.ml.Scaler"(%arg0) {torch.onnx.offset = [1.000000e+00 : f32, 2.000000e+00 : f32], torch.onnx.scale = [5.000000e-01 : f32, 4.000000e+00 : f32]} : (!torch.vtensor<[?,2],f64>) -> !torch.vtensor<[?,2],f32>
  return %0 : !torch.vtensor<[?,2],f32>
}

// -----

// CHECK-LABEL: func.func @normalizer
func.func @normalizer(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 1 : si64}} {
  // CHECK: %[[ABS:.*]] = torch.aten.abs %arg0
  // CHECK: %[[NORM:.*]] = torch.aten.sum.dim_IntList %[[ABS]], {{.*}} -> !torch.vtensor<[?,1],f32>
  // CHECK: %[[ZERO:.*]] = torch.aten.eq.Scalar %[[NORM]]
  // CHECK: %[[DIVISOR:.*]] = torch.aten.where.ScalarSelf %[[ZERO]], %{{.*}}, %[[NORM]]
  // CHECK: torch.aten.div.Tensor %arg0, %[[DIVISOR]] : !torch.vtensor<[?,3],f32>, !torch.vtensor<[?,1],f32> -> !torch.vtensor<[?,3],f32>
  %0 = torch.operator "ai.onnx.ml.Normalizer"(%arg0) {torch.onnx.norm = "L1"} : (!torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],f32>
  return %0 : !torch.vtensor<[?,3],f32>
}

// -----

// CHECK-LABEL: func.func @linear_classifier
func.func @linear_classifier(%arg0: !torch.vtensor<[?,2],f32>) -> (!torch.vtensor<[?],si64>, !torch.vtensor<[?,3],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 1 : si64}} {
  // CHECK: %[[W:.*]] = torch.vtensor.literal(dense<{{\[\[}}1.000000e+00, 0.000000e+00, 1.000000e+00], [0.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<2x3xf32>)
  // CHECK: %[[PRODUCT:.*]] = torch.aten.mm %arg0, %[[W]] : !torch.vtensor<[?,2],f32>, !torch.vtensor<[2,3],f32> -> !torch.vtensor<[?,3],f32>
  // CHECK: %[[SCORES:.*]] = torch.aten.add.Tensor %[[PRODUCT]]
  // CHECK: %[[BEST:.*]] = torch.aten.argmax %[[SCORES]]
  // CHECK: %[[LABELS:.*]] = torch.vtensor.literal(dense<[5, 6, 7]> : tensor<3xsi64>)
  // CHECK: %[[LABEL:.*]] = torch.aten.index_select %[[LABELS]], %{{.*}}, %[[BEST]] : !torch.vtensor<[3],si64>, !torch.int, !torch.vtensor<[?],si64> -> !torch.vtensor<[?],si64>
  // CHECK: %[[PROBABILITIES:.*]] = torch.aten.softmax.int %[[SCORES]]
  // CHECK: return %[[LABEL]], %[[PROBABILITIES]]
  %0:2 = torch.operator "ai.onnx.ml.LinearClassifier"(%arg0) {torch.onnx.classlabels_ints = [5 : si64, 6 : si64, 7 : si64], torch.onnx.coefficients = [1.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 1.000000e+00 : f32, 1.000000e+00 : f32, 1.000000e+00 : f32], torch.onnx.intercepts = [0.000000e+00 : f32, 5.000000e-01 : f32, -5.000000e-01 : f32], torch.onnx.post_transform = "SOFTMAX"} : (!torch.vtensor<[?,2],f32>) -> (!torch.vtensor<[?],si64>, !torch.vtensor<[?,3],f32>)
  return %0#0, %0#1 : !torch.vtensor<[?],si64>, !torch.vtensor<[?,3],f32>
}

// -----

// CHECK-LABEL: func.func @svm_regressor
func.func @svm_regressor(%arg0: !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,1],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 1 : si64}} {
  // CHECK: %[[DIFFERENCE:.*]] = torch.aten.sub.Tensor {{.*}} -> !torch.vtensor<[3,2,2],f32>
  // CHECK: %[[SQUARES:.*]] = torch.aten.mul.Tensor %[[DIFFERENCE]], %[[DIFFERENCE]]
  // CHECK: %[[DISTANCE:.*]] = torch.aten.sum.dim_IntList %[[SQUARES]], {{.*}} -> !torch.vtensor<[3,2],f32>
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Scalar %[[DISTANCE]], %float-5.000000e-01
  // CHECK: %[[KERNEL:.*]] = torch.aten.exp %[[SCALED]]
  // CHECK: %[[VALUES:.*]] = torch.aten.mm %[[KERNEL]], %{{.*}} : !torch.vtensor<[3,2],f32>, !torch.vtensor<[2,1],f32> -> !torch.vtensor<[3,1],f32>
  // CHECK: torch.aten.add.Scalar %[[VALUES]], %float2.500000e-01
  %0 = torch.operator "ai.onnx.ml.SVMRegressor"(%arg0) {torch.onnx.coefficients = [1.000000e+00 : f32, -1.000000e+00 : f32], torch.onnx.kernel_params = [5.000000e-01 : f32, 0.000000e+00 : f32, 3.000000e+00 : f32], torch.onnx.kernel_type = "RBF", torch.onnx.n_supports = 2 : si64, torch.onnx.rho = [2.500000e-01 : f32], torch.onnx.support_vectors = [0.000000e+00 : f32, 1.000000e+00 : f32, 1.000000e+00 : f32, 0.000000e+00 : f32]} : (!torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,1],f32>
  return %0 : !torch.vtensor<[3,1],f32>
}

// -----

// CHECK-LABEL: func.func @svm_classifier
func.func @svm_classifier(%arg0: !torch.vtensor<[3,2],f32>) -> (!torch.vtensor<[3],si64>, !torch.vtensor<[3,3],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 1 : si64}} {
  // One-vs-one decisions: the kernels times W [vectors, pairs], plus rho; the votes pick the label.
  // CHECK: %[[KERNELS:.*]] = torch.aten.mm %arg0, %{{.*}} : !torch.vtensor<[3,2],f32>, !torch.vtensor<[2,3],f32> -> !torch.vtensor<[3,3],f32>
  // CHECK: %[[PAIRS:.*]] = torch.vtensor.literal(dense<{{\[\[}}1.000000e+00, 5.000000e-01, 0.000000e+00], [-1.000000e+00, 0.000000e+00, 1.000000e+00], [0.000000e+00, 5.000000e-01, -1.000000e+00]]> : tensor<3x3xf32>)
  // CHECK: %[[RAW:.*]] = torch.aten.mm %[[KERNELS]], %[[PAIRS]]
  // CHECK: %[[DECISIONS:.*]] = torch.aten.add.Tensor %[[RAW]]
  // CHECK: torch.aten.gt.Scalar %[[DECISIONS]]
  // CHECK: %[[VOTES:.*]] = torch.aten.add.Tensor
  // CHECK: %[[BEST:.*]] = torch.aten.argmax %[[VOTES]]
  // CHECK: %[[LABEL:.*]] = torch.aten.index_select %{{.*}}, %{{.*}}, %[[BEST]]
  // CHECK: return %[[LABEL]], %[[DECISIONS]] : !torch.vtensor<[3],si64>, !torch.vtensor<[3,3],f32>
  %0:2 = torch.operator "ai.onnx.ml.SVMClassifier"(%arg0) {torch.onnx.classlabels_ints = [0 : si64, 1 : si64, 2 : si64], torch.onnx.coefficients = [1.000000e+00 : f32, -1.000000e+00 : f32, 5.000000e-01 : f32, 5.000000e-01 : f32, 1.000000e+00 : f32, -1.000000e+00 : f32], torch.onnx.kernel_type = "LINEAR", torch.onnx.rho = [1.000000e-01 : f32, 2.000000e-01 : f32, 3.000000e-01 : f32], torch.onnx.support_vectors = [0.000000e+00 : f32, 1.000000e+00 : f32, 1.000000e+00 : f32, 0.000000e+00 : f32, 1.000000e+00 : f32, 1.000000e+00 : f32], torch.onnx.vectors_per_class = [1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[3,2],f32>) -> (!torch.vtensor<[3],si64>, !torch.vtensor<[3,3],f32>)
  return %0#0, %0#1 : !torch.vtensor<[3],si64>, !torch.vtensor<[3,3],f32>
}

// -----

// CHECK-LABEL: func.func @tree_classifier
func.func @tree_classifier(%arg0: !torch.vtensor<[3,2],f32>) -> (!torch.vtensor<[3],si64>, !torch.vtensor<[3,2],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 1 : si64}} {
  // A binary tree with one weighted class: [1 - p, p], label 1 where p > 0.5.
  // CHECK: torch.aten.le.Tensor
  // CHECK: %[[WEIGHTS:.*]] = torch.vtensor.literal(dense<{{\[\[}}2.500000e-01, 0.000000e+00], [7.500000e-01, 0.000000e+00]]> : tensor<2x2xf32>)
  // CHECK: torch.aten.sum.dim_IntList {{.*}} -> !torch.vtensor<[3,2],f32>
  // CHECK: %[[POSITIVE:.*]] = torch.aten.gt.Scalar %{{.*}}, %float5.000000e-01
  // CHECK: torch.aten.where.Scalar %[[POSITIVE]], %int1{{.*}}, %int0{{.*}} : !torch.vtensor<[3,1],i1>, !torch.int, !torch.int -> !torch.vtensor<[3,1],si64>
  // CHECK: torch.aten.rsub.Scalar
  // CHECK: torch.aten.cat
  %0:2 = torch.operator "ai.onnx.ml.TreeEnsembleClassifier"(%arg0) {torch.onnx.class_ids = [0 : si64, 0 : si64], torch.onnx.class_nodeids = [1 : si64, 2 : si64], torch.onnx.class_treeids = [0 : si64, 0 : si64], torch.onnx.class_weights = [2.500000e-01 : f32, 7.500000e-01 : f32], torch.onnx.classlabels_int64s = [0 : si64, 1 : si64], torch.onnx.nodes_falsenodeids = [2 : si64, 0 : si64, 0 : si64], torch.onnx.nodes_featureids = [1 : si64, 0 : si64, 0 : si64], torch.onnx.nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF"], torch.onnx.nodes_nodeids = [0 : si64, 1 : si64, 2 : si64], torch.onnx.nodes_treeids = [0 : si64, 0 : si64, 0 : si64], torch.onnx.nodes_truenodeids = [1 : si64, 0 : si64, 0 : si64], torch.onnx.nodes_values = [5.000000e-01 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32]} : (!torch.vtensor<[3,2],f32>) -> (!torch.vtensor<[3],si64>, !torch.vtensor<[3,2],f32>)
  return %0#0, %0#1 : !torch.vtensor<[3],si64>, !torch.vtensor<[3,2],f32>
}

// -----

// CHECK-LABEL: func.func @label_encoder
func.func @label_encoder(%arg0: !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 2 : si64}} {
  // CHECK: %[[KEYS:.*]] = torch.vtensor.literal(dense<[3, 5]> : tensor<2xsi64>)
  // CHECK: %[[MATCHES:.*]] = torch.aten.eq.Tensor %{{.*}}, %[[KEYS]] : !torch.vtensor<[4,1],si64>, !torch.vtensor<[2],si64> -> !torch.vtensor<[4,2],i1>
  // CHECK: %[[FOUND:.*]] = torch.aten.any.dim %[[MATCHES]]
  // CHECK: %[[FIRST:.*]] = torch.aten.argmax
  // CHECK: %[[INDEX:.*]] = torch.aten.where.ScalarOther %[[FOUND]], %[[FIRST]], %int2
  // CHECK: %[[TABLE:.*]] = torch.vtensor.literal(dense<[5.000000e-01, 1.500000e+00, -1.000000e+00]> : tensor<3xf32>)
  // CHECK: torch.aten.index_select %[[TABLE]], %{{.*}}, %[[INDEX]]
  %0 = torch.operator "ai.onnx.ml.LabelEncoder"(%arg0) {torch.onnx.default_float = -1.000000e+00 : f32, torch.onnx.keys_int64s = [3 : si64, 5 : si64], torch.onnx.values_floats = [5.000000e-01 : f32, 1.500000e+00 : f32]} : (!torch.vtensor<[4],si64>) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
