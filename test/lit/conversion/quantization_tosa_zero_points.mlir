// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --step quantization-markers-as-custom-ops --convert-torch-to-tosa --step quantized-regions-as-integer | FileCheck %s

// On TOSA, integer products whose zero points are run-time values, or per row, column or channel,
// are an int8 product with zero points 0 (tosa.matmul / tosa.conv2d on i8, i32 accumulators) and
// the zero points' terms in i32 (quantization/tosa_products.py): TOSA takes no i32 product, and
// its lowering to Linalg only constant per-tensor zero points.

// MatMulInteger, uint8 x int8, zero points as inputs: uint8 shifted to int8 (a - 128) with its zero
// point; the row sums of a and column sums of b (tosa.reduce_sum on i32) times the other zero point.
// CHECK-LABEL: func.func @matmul_integer_run_time_zero_points
// CHECK-NOT: tosa.matmul {{.*}}xi32>, tensor<{{.*}}xi32>
// CHECK-DAG: %[[ZERO:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
// CHECK-DAG: tosa.matmul %{{.*}}, %{{.*}}, %[[ZERO]], %[[ZERO]] : (tensor<1x4x8xi8>, tensor<1x8x3xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x3xi32>
// CHECK-DAG: tosa.reduce_sum %{{.*}} {axis = 1 : i32} : (tensor<4x8xi32>) -> tensor<4x1xi32>
// CHECK-DAG: tosa.reduce_sum %{{.*}} {axis = 0 : i32} : (tensor<8x3xi32>) -> tensor<1x3xi32>
// CHECK-NOT: tosa.matmul
// CHECK: return {{.*}} : tensor<4x3xi32>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @matmul_integer_run_time_zero_points(%a: !torch.vtensor<[4,8],ui8>, %b: !torch.vtensor<[8,3],si8>, %az: !torch.vtensor<[],ui8>, %bz: !torch.vtensor<[],si8>) -> !torch.vtensor<[4,3],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %0 = torch.operator "onnx.MatMulInteger"(%a, %b, %az, %bz) : (!torch.vtensor<[4,8],ui8>, !torch.vtensor<[8,3],si8>, !torch.vtensor<[],ui8>, !torch.vtensor<[],si8>) -> !torch.vtensor<[4,3],si32>
    return %0 : !torch.vtensor<[4,3],si32>
  }
}

// -----

// ConvInteger with a run-time x zero point and a per-channel w zero point, padded: the product,
// the window sums of x (a kernel of ones) and the sums of w over the in-bounds taps (the input's
// mask, padded with zeros) are int8 convolutions; the count of in-bounds taps is a literal.
// CHECK-LABEL: func.func @conv_integer_per_channel_zero_point
// CHECK-NOT: tosa.conv2d {{.*}}xi32>, tensor<{{.*}}xi32>
// CHECK-COUNT-3: tosa.conv2d {{.*}} : (tensor<{{.*}}xi8>, tensor<{{.*}}xi8>, tensor<{{.*}}xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<{{.*}}xi32>
// CHECK-NOT: tosa.conv2d
// CHECK: return {{.*}} : tensor<1x3x5x5xi32>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @conv_integer_per_channel_zero_point(%x: !torch.vtensor<[1,2,5,5],ui8>, %w: !torch.vtensor<[3,2,3,3],ui8>, %xz: !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,3,5,5],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %wz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[120, 128, 131]> : tensor<3xui8>} : () -> !torch.vtensor<[3],ui8>
    %0 = torch.operator "onnx.ConvInteger"(%x, %w, %xz, %wz) {torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,2,5,5],ui8>, !torch.vtensor<[3,2,3,3],ui8>, !torch.vtensor<[],ui8>, !torch.vtensor<[3],ui8>) -> !torch.vtensor<[1,3,5,5],si32>
    return %0 : !torch.vtensor<[1,3,5,5],si32>
  }
}

// -----

// QLinearConv with literal int8 weights quantized per channel with zero points 0 (onnxruntime's
// default): the w zero point's terms vanish, and the x zero point (an input) multiplies the weight
// sums over the in-bounds taps, a literal [C, OH, OW]: one int8 convolution.
// CHECK-LABEL: func.func @qlinear_conv_symmetric_per_channel_weights
// CHECK-COUNT-1: tosa.conv2d {{.*}} : (tensor<{{.*}}xi8>, tensor<{{.*}}xi8>, tensor<{{.*}}xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<{{.*}}xi32>
// CHECK-NOT: tosa.conv2d
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @qlinear_conv_symmetric_per_channel_weights(%x: !torch.vtensor<[1,2,5,5],ui8>, %xz: !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,2,3,3],ui8> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %xs = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %w = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<2x2x3x3xsi8>} : () -> !torch.vtensor<[2,2,3,3],si8>
    %ws = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
    %wz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
    %ys = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.000000e+00> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %yz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<100> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %0 = torch.operator "onnx.QLinearConv"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz) : (!torch.vtensor<[1,2,5,5],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[2,2,3,3],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,2,3,3],ui8>
    return %0 : !torch.vtensor<[1,2,3,3],ui8>
  }
}

// -----

// Without padding, the sums of w over the taps are a reduction (the same at every output position).
// CHECK-LABEL: func.func @conv_integer_unpadded
// CHECK: tosa.conv2d {{.*}} : (tensor<1x6x6x2xi8>, tensor<3x2x2x2xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x3xi32>
// CHECK-NOT: tosa.conv2d
// CHECK: tosa.reduce_sum
// CHECK-NOT: tosa.conv2d
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @conv_integer_unpadded(%x: !torch.vtensor<[1,2,6,6],si8>, %w: !torch.vtensor<[3,2,2,2],si8>, %xz: !torch.vtensor<[],si8>) -> !torch.vtensor<[1,3,3,3],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %0 = torch.operator "onnx.ConvInteger"(%x, %w, %xz) {torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,2,6,6],si8>, !torch.vtensor<[3,2,2,2],si8>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,3,3,3],si32>
    return %0 : !torch.vtensor<[1,3,3,3],si32>
  }
}
