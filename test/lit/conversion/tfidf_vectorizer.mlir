// TfIdfVectorizer since 9: n-gram counts over shifted slices of X against a constant pool.
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Unigrams [3], [5] and bigram [5, 6] (column 2), skips up to 1, TFIDF; column 1 is unused.
// CHECK-LABEL: func.func @tfidf
func.func @tfidf(%x: !torch.vtensor<[?,6],si32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  // CHECK: %[[X:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[?,6],si64>
  // Unigrams: every position once.
  // CHECK: %[[ALL:.*]] = torch.aten.slice.Tensor %[[X]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : {{.*}} -> !torch.vtensor<[?,6],si64>
  // CHECK: %[[COLUMN:.*]] = torch.aten.unsqueeze %[[ALL]]
  // CHECK: %[[UNI:.*]] = torch.vtensor.literal(dense<[3, 5]> : tensor<2xsi64>)
  // CHECK: torch.aten.eq.Tensor %[[COLUMN]], %[[UNI]] : {{.*}} -> !torch.vtensor<[?,6,2],i1>
  // CHECK: torch.aten.sum.dim_IntList {{.*}} -> !torch.vtensor<[?,2],f32>
  // Bigrams with skip 0: windows of 5; with skip 1: windows of 4.
  // CHECK: torch.aten.eq.Tensor {{.*}} -> !torch.vtensor<[?,5,1],i1>
  // CHECK: torch.aten.eq.Tensor {{.*}} -> !torch.vtensor<[?,5,1],i1>
  // CHECK: torch.aten.logical_and
  // CHECK: torch.aten.eq.Tensor {{.*}} -> !torch.vtensor<[?,4,1],i1>
  // CHECK: %[[COUNTS:.*]] = torch.aten.cat {{.*}} -> !torch.vtensor<[?,3],f32>
  // CHECK: %[[WEIGHTS:.*]] = torch.vtensor.literal(dense<[5.000000e-01, 2.000000e+00, 4.000000e+00]> : tensor<3xf32>)
  // CHECK: %[[WEIGHTED:.*]] = torch.aten.mul.Tensor %[[COUNTS]], %[[WEIGHTS]]
  // CHECK: %[[PADDED:.*]] = torch.aten.cat {{.*}} -> !torch.vtensor<[?,4],f32>
  // CHECK: %[[SOURCE:.*]] = torch.vtensor.literal(dense<[0, 3, 1, 2]> : tensor<4xsi64>)
  // CHECK: torch.aten.index_select %[[PADDED]], %{{.*}}, %[[SOURCE]] : {{.*}} -> !torch.vtensor<[?,4],f32>
  %0 = torch.operator "onnx.TfIdfVectorizer"(%x) {torch.onnx.max_gram_length = 2 : si64, torch.onnx.max_skip_count = 1 : si64, torch.onnx.min_gram_length = 1 : si64, torch.onnx.mode = "TFIDF", torch.onnx.ngram_counts = [0 : si64, 2 : si64], torch.onnx.ngram_indexes = [0 : si64, 2 : si64, 3 : si64], torch.onnx.pool_int64s = [3 : si64, 5 : si64, 5 : si64, 6 : si64], torch.onnx.weights = [5.000000e-01 : f32, 2.000000e+00 : f32, 4.000000e+00 : f32]} : (!torch.vtensor<[?,6],si32>) -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}

// -----

// A 1-D X is one row; IDF clamps the counts at 1.
// CHECK-LABEL: func.func @idf_vector_onnx_dialect
module attributes {onnx.opset_version = 9 : i64} {
  func.func @idf_vector_onnx_dialect(%x: tensor<5xi64>) -> tensor<2xf32> {
    // CHECK: torch.aten.unsqueeze {{.*}} -> !torch.vtensor<[1,5],si64>
    // CHECK: torch.aten.clamp_max
    // CHECK: torch.aten.squeeze.dim {{.*}} -> !torch.vtensor<[2],f32>
    %0 = "onnx.TfIdfVectorizer"(%x) {max_gram_length = 1 : si64, max_skip_count = 0 : si64, min_gram_length = 1 : si64, mode = "IDF", ngram_counts = [0], ngram_indexes = [1, 0], pool_int64s = [7, 8]} : (tensor<5xi64>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
