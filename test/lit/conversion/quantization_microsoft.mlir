// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// QLinearAdd: both operands dequantized in float64 (exact), added, divided once by C_scale,
// rounded half to even, the zero point added, saturated to int8.
// CHECK-LABEL: func.func @qlinear_add
// CHECK: %[[A:.*]] = torch.aten.mul.Tensor %{{.*}} -> !torch.vtensor<[2,8],f64>
// CHECK: %[[B:.*]] = torch.aten.mul.Tensor %{{.*}} -> !torch.vtensor<[8],f64>
// CHECK: %[[SUM:.*]] = torch.aten.add.Tensor %[[A]], %[[B]], %{{.*}} -> !torch.vtensor<[2,8],f64>
// CHECK: %[[QUOTIENT:.*]] = torch.aten.div.Tensor %[[SUM]], %{{.*}} -> !torch.vtensor<[2,8],f64>
// CHECK: torch.aten.round %[[QUOTIENT]]
// CHECK: torch.aten.clamp %{{.*}}, %float-1.280000e02, %float1.270000e02
func.func @qlinear_add(%a: !torch.vtensor<[2,8],si8>, %b: !torch.vtensor<[8],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],si8>) -> !torch.vtensor<[2,8],si8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = torch.operator "com.microsoft.QLinearAdd"(%a, %s, %z, %b, %s, %z, %s, %z) : (!torch.vtensor<[2,8],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[8],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[2,8],si8>
  return %0 : !torch.vtensor<[2,8],si8>
}

// -----

// CHECK-LABEL: func.func @qlinear_mul
// CHECK: %[[PRODUCT:.*]] = torch.aten.mul.Tensor %{{.*}}, %{{.*}} : !torch.vtensor<[4],f64>, !torch.vtensor<[4],f64> -> !torch.vtensor<[4],f64>
// CHECK: torch.aten.div.Tensor %[[PRODUCT]]
func.func @qlinear_mul(%a: !torch.vtensor<[4],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[4],ui8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = torch.operator "com.microsoft.QLinearMul"(%a, %s, %z, %a, %s, %z, %s, %z) : (!torch.vtensor<[4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[4],ui8>
  return %0 : !torch.vtensor<[4],ui8>
}

// -----

// QLinearSigmoid and QLinearLeakyRelu: float32 in between; an absent zero point is 0.
// CHECK-LABEL: func.func @qlinear_sigmoid_leaky_relu
// CHECK: %[[SIGMOID:.*]] = torch.aten.sigmoid %{{.*}} : !torch.vtensor<[6],f32> -> !torch.vtensor<[6],f32>
// CHECK: torch.aten.div.Tensor %[[SIGMOID]]
// CHECK: %[[LEAKY:.*]] = torch.aten.leaky_relu %{{.*}}, %float2.500000e-01
// CHECK: torch.aten.div.Tensor %[[LEAKY]]
func.func @qlinear_sigmoid_leaky_relu(%x: !torch.vtensor<[6],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],si8>) -> (!torch.vtensor<[6],si8>, !torch.vtensor<[6],si8>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = torch.constant.none
  %0 = torch.operator "com.microsoft.QLinearSigmoid"(%x, %s, %none, %s, %z) : (!torch.vtensor<[6],si8>, !torch.vtensor<[],f32>, !torch.none, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[6],si8>
  %1 = torch.operator "com.microsoft.QLinearLeakyRelu"(%x, %s, %z, %s, %z) {torch.onnx.alpha = 2.500000e-01 : f32} : (!torch.vtensor<[6],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[6],si8>
  return %0, %1 : !torch.vtensor<[6],si8>, !torch.vtensor<[6],si8>
}

// -----

// QLinearSoftmax of opset 11 at axis 1 of a rank-3 input: softmax over the input coerced to 2-D.
// CHECK-LABEL: func.func @qlinear_softmax_opset11
// CHECK: %[[FLAT:.*]] = torch.aten.reshape %{{.*}} -> !torch.vtensor<[2,12],f32>
// CHECK: %[[SOFTMAX:.*]] = torch.aten.softmax.int %[[FLAT]], %int1
// CHECK: torch.aten.reshape %[[SOFTMAX]], {{.*}} -> !torch.vtensor<[2,3,4],f32>
func.func @qlinear_softmax_opset11(%x: !torch.vtensor<[2,3,4],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3,4],ui8> attributes {torch.onnx_meta.opset_version = 11 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = torch.operator "com.microsoft.QLinearSoftmax"(%x, %s, %z, %s, %z) {torch.onnx.opset = 11 : si64} : (!torch.vtensor<[2,3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3,4],ui8>
  return %0 : !torch.vtensor<[2,3,4],ui8>
}

// -----

// QLinearGlobalAveragePool, channels_last: the int32 sum over dims 1 and 2 (dynamic: their sizes
// are read at run time for the count).
// CHECK-LABEL: func.func @qlinear_global_average_pool_nhwc
// CHECK: %[[SUM:.*]] = torch.aten.sum.dim_IntList %{{.*}}, %{{.*}}, %true, %int3{{[_0-9]*}} : !torch.vtensor<[1,?,?,3],si32>, {{.*}} -> !torch.vtensor<[1,1,1,3],si32>
// CHECK: torch.aten.size.int %arg0, %int1
// CHECK: torch.aten.size.int %arg0, %int2
// CHECK: torch.aten.mul.Scalar
// CHECK: torch.aten.div.Tensor {{.*}} -> !torch.vtensor<[1,1,1,3],f64>
func.func @qlinear_global_average_pool_nhwc(%x: !torch.vtensor<[1,?,?,3],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,1,1,3],ui8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = torch.operator "com.microsoft.QLinearGlobalAveragePool"(%x, %s, %z, %s, %z) {torch.onnx.channels_last = 1 : si64} : (!torch.vtensor<[1,?,?,3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,1,1,3],ui8>
  return %0 : !torch.vtensor<[1,1,1,3],ui8>
}

// -----

// QLinearConcat: an input whose literal scale and zero point are Y's is concatenated as it is;
// the other is requantized.
// CHECK-LABEL: func.func @qlinear_concat
// CHECK: %[[REQUANTIZED:.*]] = torch.aten.to.dtype %{{.*}} -> !torch.vtensor<[2,5],si8>
// CHECK: %[[LIST:.*]] = torch.prim.ListConstruct %arg0, %[[REQUANTIZED]]
// CHECK: torch.aten.cat %[[LIST]], %int1{{[_0-9]*}} : {{.*}} -> !torch.vtensor<[2,8],si8>
func.func @qlinear_concat(%x1: !torch.vtensor<[2,3],si8>, %x2: !torch.vtensor<[2,5],si8>) -> !torch.vtensor<[2,8],si8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %ys = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %yz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
  %s1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %z1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
  %s2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %z2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-4> : tensor<si8>} : () -> !torch.vtensor<[],si8>
  %0 = torch.operator "com.microsoft.QLinearConcat"(%ys, %yz, %x1, %s1, %z1, %x2, %s2, %z2) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[2,3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[2,5],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[2,8],si8>
  return %0 : !torch.vtensor<[2,8],si8>
}

// -----

// QGemm with transB and float output, for TOSA: uint8 A shifted to int8, B read as qint8, the
// int32 product plus C, times alpha * a_scale * b_scale (a float32 literal: 0.5 * 0.1 * 0.3).
// CHECK-LABEL: func.func @qgemm_float_output_tosa
// CHECK: %[[B:.*]] = torch.aten.transpose.int %arg1, %int0, %int1 : !torch.vtensor<[3,16],si8>, !torch.int, !torch.int -> !torch.vtensor<[16,3],si8>
// CHECK: %[[QA:.*]] = torch.aten._make_per_tensor_quantized_tensor %{{.*}}, %float1.000000e00{{[_0-9]*}}, %int0{{[_0-9]*}} : !torch.vtensor<[2,16],si8>
// CHECK: %[[QB:.*]] = torch.aten._make_per_tensor_quantized_tensor %[[B]], %float1.000000e00{{[_0-9]*}}, %int0{{[_0-9]*}}
// CHECK: %[[PRODUCT:.*]] = torch.aten.matmul %[[QA]], %[[QB]] {{.*}} -> !torch.vtensor<[2,3],!torch.qint32>
// CHECK: %[[ACC:.*]] = torch.aten.int_repr %[[PRODUCT]]
// CHECK: torch.aten.add.Tensor %[[ACC]], %arg2
// CHECK: torch.vtensor.literal(dense<0.0150000006> : tensor<f32>)
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @qgemm_float_output_tosa(%a: !torch.vtensor<[2,16],ui8>, %b: !torch.vtensor<[3,16],si8>, %c: !torch.vtensor<[3],si32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
    %as = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %az = torch.operator "onnx.Constant"() {torch.onnx.value = dense<128> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %bs = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %bz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %0 = torch.operator "com.microsoft.QGemm"(%a, %as, %az, %b, %bs, %bz, %c) {torch.onnx.transB = 1 : si64, torch.onnx.alpha = 5.000000e-01 : f32} : (!torch.vtensor<[2,16],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[3,16],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[3],si32>) -> !torch.vtensor<[2,3],f32>
    return %0 : !torch.vtensor<[2,3],f32>
  }
}

// -----

// MatMulIntegerToFloat for StableHLO: the int32 form (a per-column b zero point), then float32.
// CHECK-LABEL: func.func @matmul_integer_to_float_stablehlo
// CHECK: %[[ACC:.*]] = torch.aten.matmul %{{.*}}, %{{.*}} : !torch.vtensor<[2,4,8],si32>, !torch.vtensor<[8,5],si32> -> !torch.vtensor<[2,4,5],si32>
// CHECK: %[[FLOAT:.*]] = torch.aten.to.dtype %[[ACC]], {{.*}} -> !torch.vtensor<[2,4,5],f32>
// CHECK: %[[SCALED:.*]] = torch.aten.mul.Tensor %[[FLOAT]]
// CHECK: torch.aten.add.Tensor %[[SCALED]], %arg4
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @matmul_integer_to_float_stablehlo(%a: !torch.vtensor<[2,4,8],ui8>, %b: !torch.vtensor<[8,5],si8>, %as: !torch.vtensor<[],f32>, %bs: !torch.vtensor<[5],f32>, %bias: !torch.vtensor<[5],f32>, %bz: !torch.vtensor<[5],si8>) -> !torch.vtensor<[2,4,5],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
    %none = torch.constant.none
    %0 = torch.operator "com.microsoft.MatMulIntegerToFloat"(%a, %b, %as, %bs, %none, %bz, %bias) : (!torch.vtensor<[2,4,8],ui8>, !torch.vtensor<[8,5],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[5],f32>, !torch.none, !torch.vtensor<[5],si8>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[2,4,5],f32>
    return %0 : !torch.vtensor<[2,4,5],f32>
  }
}

// -----

// DynamicQuantizeMatMul: A's range gives its uint8 scale and zero point at run time.
// CHECK-LABEL: func.func @dynamic_quantize_matmul
// CHECK: torch.aten.max %arg0
// CHECK: torch.aten.min %arg0
// CHECK: torch.aten.matmul %{{.*}} -> !torch.vtensor<[3,5],si32>
func.func @dynamic_quantize_matmul(%a: !torch.vtensor<[3,8],f32>, %b: !torch.vtensor<[8,5],si8>, %bs: !torch.vtensor<[],f32>) -> !torch.vtensor<[3,5],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = torch.operator "com.microsoft.DynamicQuantizeMatMul"(%a, %b, %bs) : (!torch.vtensor<[3,8],f32>, !torch.vtensor<[8,5],si8>, !torch.vtensor<[],f32>) -> !torch.vtensor<[3,5],f32>
  return %0 : !torch.vtensor<[3,5],f32>
}

// -----

// QLinearConv with channels_last: NHWC to NCHW, the convolution, back to NHWC.
// CHECK-LABEL: func.func @qlinear_conv_channels_last
// CHECK: %[[NCHW:.*]] = torch.aten.permute %arg0, {{.*}} -> !torch.vtensor<[1,2,5,5],si8>
// CHECK: torch.aten.convolution {{.*}} -> !torch.vtensor<[1,3,3,3],si32>
// CHECK: torch.aten.permute {{.*}} -> !torch.vtensor<[1,3,3,3],si8>
func.func @qlinear_conv_channels_last(%x: !torch.vtensor<[1,5,5,2],si8>, %w: !torch.vtensor<[3,2,3,3],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],si8>) -> !torch.vtensor<[1,3,3,3],si8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = torch.operator "com.microsoft.QLinearConv"(%x, %s, %z, %w, %s, %z, %s, %z) {torch.onnx.channels_last = 1 : si64} : (!torch.vtensor<[1,5,5,2],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[3,2,3,3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,3,3,3],si8>
  return %0 : !torch.vtensor<[1,3,3,3],si8>
}
