// A quantized batch product by a matrix broadcast over the batch becomes one quantized matrix
// product on the rows (transforms/linalg/quantized_matrix_products.py): IREE fails on the zero
// point's term of the batch form when the batch size is computed (test_iree_quantized_matmul.py).
// RUN: onnx-mlir-opt %s --step quantized-batch-products-by-a-matrix | FileCheck %s

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[ROWS:.*]]: tensor<?x?x32xi8>, %[[MATRIX:.*]]: tensor<32x16xi8>)
// CHECK-NOT: linalg.broadcast
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[ROWS]] {{\[\[}}0, 1], [2]] : tensor<?x?x32xi8> into tensor<?x32xi8>
// CHECK: %[[INIT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x?x16xi32> into tensor<?x16xi32>
// CHECK: %[[PRODUCT:.*]] = linalg.quantized_matmul ins(%[[FLAT]], %[[MATRIX]], %{{.*}}, %{{.*}} : tensor<?x32xi8>, tensor<32x16xi8>, i32, i32) outs(%[[INIT]] : tensor<?x16xi32>)
// CHECK: %[[BATCH:.*]] = tensor.dim
// CHECK: %[[COUNT:.*]] = tensor.dim
// CHECK: %[[RESULT:.*]] = tensor.expand_shape %[[PRODUCT]] {{\[\[}}0, 1], [2]] output_shape [%[[BATCH]], %[[COUNT]], 16] : tensor<?x16xi32> into tensor<?x?x16xi32>
// CHECK: return %[[RESULT]]
func.func @dynamic(%rows: tensor<?x?x32xi8>, %matrix: tensor<32x16xi8>) -> tensor<?x?x16xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %rows_zero_point = arith.constant 15 : i32
  %batch = tensor.dim %rows, %c0 : tensor<?x?x32xi8>
  %count = tensor.dim %rows, %c1 : tensor<?x?x32xi8>
  %copies = tensor.empty(%batch) : tensor<?x32x16xi8>
  %repeated = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%matrix : tensor<32x16xi8>) outs(%copies : tensor<?x32x16xi8>) {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  } -> tensor<?x32x16xi8>
  %empty = tensor.empty(%batch, %count) : tensor<?x?x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<?x?x16xi32>) -> tensor<?x?x16xi32>
  %product = linalg.quantized_batch_matmul ins(%rows, %repeated, %rows_zero_point, %zero : tensor<?x?x32xi8>, tensor<?x32x16xi8>, i32, i32) outs(%init : tensor<?x?x16xi32>) -> tensor<?x?x16xi32>
  return %product : tensor<?x?x16xi32>
}

// Static sizes: the rows are [2 * 3, 32]; a linalg.broadcast is a broadcast too.
// CHECK-LABEL: func.func @static
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x32xi8> into tensor<6x32xi8>
// CHECK: linalg.quantized_matmul ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<6x32xi8>, tensor<32x16xi8>, i32, i32)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [2, 3, 16] : tensor<6x16xi32> into tensor<2x3x16xi32>
func.func @static(%rows: tensor<2x3x32xi8>, %matrix: tensor<32x16xi8>) -> tensor<2x3x16xi32> {
  %zero = arith.constant 0 : i32
  %copies = tensor.empty() : tensor<2x32x16xi8>
  %repeated = linalg.broadcast ins(%matrix : tensor<32x16xi8>) outs(%copies : tensor<2x32x16xi8>) dimensions = [0]
  %empty = tensor.empty() : tensor<2x3x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<2x3x16xi32>) -> tensor<2x3x16xi32>
  %product = linalg.quantized_batch_matmul ins(%rows, %repeated, %zero, %zero : tensor<2x3x32xi8>, tensor<2x32x16xi8>, i32, i32) outs(%init : tensor<2x3x16xi32>) -> tensor<2x3x16xi32>
  return %product : tensor<2x3x16xi32>
}

// A batch of matrices (attention's scores) is a batch product still.
// CHECK-LABEL: func.func @batch_of_matrices
// CHECK: linalg.quantized_batch_matmul
func.func @batch_of_matrices(%rows: tensor<?x?x8xi8>, %columns: tensor<?x8x?xi8>, %init: tensor<?x?x?xi32>) -> tensor<?x?x?xi32> {
  %zero = arith.constant 0 : i32
  %product = linalg.quantized_batch_matmul ins(%rows, %columns, %zero, %zero : tensor<?x?x8xi8>, tensor<?x8x?xi8>, i32, i32) outs(%init : tensor<?x?x?xi32>) -> tensor<?x?x?xi32>
  return %product : tensor<?x?x?xi32>
}
