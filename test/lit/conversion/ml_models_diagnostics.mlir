// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s

// CHECK: error: node 'c0' (LinearClassifier, domain 'ai.onnx.ml', opset 1): the class labels are strings ('classlabels_strings'), and torch has no string tensors; fitting the model on integer class labels gives int64 labels
func.func @string_labels(%x: !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 1 : si64}} {
  %0:2 = torch.operator "ai.onnx.ml.LinearClassifier"(%x) {torch.onnx.classlabels_strings = ["no", "yes"], torch.onnx.coefficients = [1.0 : f32, 0.0 : f32, 0.0 : f32, 1.0 : f32], torch.onnx.intercepts = [0.0 : f32, 0.0 : f32]} : (!torch.vtensor<[3,2],f32>) -> (!torch.vtensor<[3],si64>, !torch.vtensor<[3,2],f32>) loc("c0")
  return %0#1 : !torch.vtensor<[3,2],f32>
}

// -----

// CHECK: error: node 'v0' (SVMClassifier, domain 'ai.onnx.ml', opset 1): post_transform PROBIT with one score per row is not supported: onnxruntime writes the probit of the score into the first of the two columns and leaves the second unset
func.func @probit(%x: !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 1 : si64}} {
  %0:2 = torch.operator "ai.onnx.ml.SVMClassifier"(%x) {torch.onnx.classlabels_ints = [0 : si64, 1 : si64], torch.onnx.coefficients = [1.0 : f32, -1.0 : f32], torch.onnx.kernel_type = "LINEAR", torch.onnx.post_transform = "PROBIT", torch.onnx.rho = [0.5 : f32], torch.onnx.support_vectors = [0.0 : f32, 1.0 : f32, 1.0 : f32, 0.0 : f32], torch.onnx.vectors_per_class = [1 : si64, 1 : si64]} : (!torch.vtensor<[3,2],f32>) -> (!torch.vtensor<[3],si64>, !torch.vtensor<[3,2],f32>) loc("v0")
  return %0#1 : !torch.vtensor<[3,2],f32>
}

// -----

// CHECK: error: node 'e0' (LabelEncoder, domain 'ai.onnx.ml', opset 2): string keys or values need string tensors, which torch does not have; only numeric keys and values (keys_int64s/keys_floats, values_int64s/values_floats) convert
func.func @string_values(%x: !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 2 : si64}} {
  %0 = torch.operator "ai.onnx.ml.LabelEncoder"(%x) {torch.onnx.keys_int64s = [1 : si64], torch.onnx.values_strings = ["a"]} : (!torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64> loc("e0")
  return %0 : !torch.vtensor<[4],si64>
}
