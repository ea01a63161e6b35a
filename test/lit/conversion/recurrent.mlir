// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// RNN-14, static length: X·Wᵀ + Wb + Rb for every step in one matmul, then the unrolled steps.
// CHECK-LABEL: func.func @rnn_forward
// CHECK: %[[BIAS:.*]] = torch.aten.add.Tensor {{.*}} -> !torch.vtensor<[4],f32>
// CHECK: %[[WT:.*]] = torch.aten.transpose.int {{.*}} -> !torch.vtensor<[3,4],f32>
// CHECK: %[[XW:.*]] = torch.aten.matmul %arg0, %[[WT]] : {{.*}} -> !torch.vtensor<[2,1,4],f32>
// CHECK: %[[PROJ:.*]] = torch.aten.add.Tensor %[[XW]], %[[BIAS]]
// CHECK: %[[RT:.*]] = torch.aten.transpose.int {{.*}} -> !torch.vtensor<[4,4],f32>
// CHECK: %[[H0:.*]] = torch.aten.full {{.*}} -> !torch.vtensor<[1,4],f32>
// CHECK: %[[X0:.*]] = torch.aten.select.int %[[PROJ]], %{{.*}}, %int0
// CHECK: %[[R0:.*]] = torch.aten.mm %[[H0]], %[[RT]]
// CHECK: %[[H1:.*]] = torch.aten.tanh
// CHECK: torch.aten.select.int %[[PROJ]], %{{.*}}, %int1
// CHECK: torch.aten.mm %[[H1]], %[[RT]]
// CHECK: %[[H2:.*]] = torch.aten.tanh
// CHECK: %[[LIST:.*]] = torch.prim.ListConstruct %[[H1]], %[[H2]]
// CHECK: %[[STEPS:.*]] = torch.aten.stack %[[LIST]], {{.*}} -> !torch.vtensor<[2,1,4],f32>
// CHECK: %[[Y:.*]] = torch.aten.unsqueeze %[[STEPS]], {{.*}} -> !torch.vtensor<[2,1,1,4],f32>
// CHECK: %[[YH:.*]] = torch.aten.unsqueeze %[[H2]], {{.*}} -> !torch.vtensor<[1,1,4],f32>
// CHECK: return %[[Y]], %[[YH]]
func.func @rnn_forward(%x: !torch.vtensor<[2,1,3],f32>, %w: !torch.vtensor<[1,4,3],f32>, %r: !torch.vtensor<[1,4,4],f32>, %b: !torch.vtensor<[1,8],f32>) -> (!torch.vtensor<[2,1,1,4],f32>, !torch.vtensor<[1,1,4],f32>) attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0:2 = torch.operator "onnx.RNN"(%x, %w, %r, %b) {torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,4,3],f32>, !torch.vtensor<[1,4,4],f32>, !torch.vtensor<[1,8],f32>) -> (!torch.vtensor<[2,1,1,4],f32>, !torch.vtensor<[1,1,4],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2,1,1,4],f32>, !torch.vtensor<[1,1,4],f32>
}

// -----

// RNN-1 in the ONNX dialect spelling, reverse, with activation LeakyRelu (alpha from the list),
// clip and initial_h: step 1 runs first.
// CHECK-LABEL: func.func @rnn_reverse_onnx_dialect
// CHECK: %[[PROJ:.*]] = torch.aten.matmul
// CHECK: %[[H0:.*]] = torch.aten.select.int %{{.*}}, %{{.*}}, %int0{{.*}} : !torch.vtensor<[1,2,4],f32>
// CHECK: torch.aten.select.int %[[PROJ]], %{{.*}}, %int1
// CHECK: torch.aten.mm %[[H0]]
// CHECK: %[[CLIPPED:.*]] = torch.aten.clamp %{{.*}}, %float-5.000000e-01, %float5.000000e-01
// CHECK: %[[ALPHA:.*]] = torch.constant.float 0.3000
// CHECK: %[[H1:.*]] = torch.aten.leaky_relu %[[CLIPPED]], %[[ALPHA]]
// CHECK: torch.aten.select.int %[[PROJ]], %{{.*}}, %int0
// CHECK: torch.aten.mm %[[H1]]
// CHECK: torch.aten.leaky_relu
module attributes {onnx.opset_version = 1 : i64} {
  func.func @rnn_reverse_onnx_dialect(%x: tensor<2x2x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>, %h: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
    %none = "onnx.NoValue"() {value} : () -> none
    %y, %yh = "onnx.RNN"(%x, %w, %r, %none, %none, %h) {hidden_size = 4 : si64, direction = "reverse", activations = ["LeakyRelu"], activation_alpha = [3.000000e-01 : f32], clip = 5.000000e-01 : f32} : (tensor<2x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, tensor<1x2x4xf32>) -> (none, tensor<1x2x4xf32>)
    return %yh : tensor<1x2x4xf32>
  }
}

// -----

// GRU-1 (no linear_before_reset): the reset gate scales H before Rh.
// CHECK-LABEL: func.func @gru_v1
// CHECK: %[[RT:.*]] = torch.aten.transpose.int {{.*}} -> !torch.vtensor<[4,12],f32>
// CHECK: %[[RZR:.*]] = torch.aten.slice.Tensor %[[RT]], %{{.*}}, %int0{{.*}}, %int8{{.*}} -> !torch.vtensor<[4,8],f32>
// CHECK: %[[RH:.*]] = torch.aten.slice.Tensor %[[RT]], %{{.*}}, %int8{{.*}}, %int12{{.*}} -> !torch.vtensor<[4,4],f32>
// CHECK: torch.aten.mm %{{.*}}, %[[RZR]]
// CHECK: %[[Z:.*]] = torch.aten.sigmoid
// CHECK: %[[R:.*]] = torch.aten.sigmoid
// CHECK: %[[RESET:.*]] = torch.aten.mul.Tensor %[[R]], %{{.*}}
// CHECK: torch.aten.mm %[[RESET]], %[[RH]]
// CHECK: torch.aten.tanh
func.func @gru_v1(%x: !torch.vtensor<[1,2,3],f32>, %w: !torch.vtensor<[1,12,3],f32>, %r: !torch.vtensor<[1,12,4],f32>, %b: !torch.vtensor<[1,24],f32>) -> !torch.vtensor<[1,2,4],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0:2 = torch.operator "onnx.GRU"(%x, %w, %r, %b) {torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[1,2,3],f32>, !torch.vtensor<[1,12,3],f32>, !torch.vtensor<[1,12,4],f32>, !torch.vtensor<[1,24],f32>) -> (!torch.none, !torch.vtensor<[1,2,4],f32>)
  return %0#1 : !torch.vtensor<[1,2,4],f32>
}

// -----

// GRU-3 with linear_before_reset: Rbh stays out of the input projection and under the reset gate.
// CHECK-LABEL: func.func @gru_linear_before_reset
// CHECK: %[[RBH:.*]] = torch.aten.slice.Tensor %{{.*}}, %{{.*}}, %int8{{.*}}, %int12{{.*}} -> !torch.vtensor<[4],f32>
// CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[12],f32>
// CHECK: %[[Z:.*]] = torch.aten.sigmoid
// CHECK: %[[R:.*]] = torch.aten.sigmoid
// CHECK: %[[HRH:.*]] = torch.aten.mm
// CHECK: %[[BIASED:.*]] = torch.aten.add.Tensor %[[HRH]], %[[RBH]]
// CHECK: torch.aten.mul.Tensor %[[R]], %[[BIASED]]
func.func @gru_linear_before_reset(%x: !torch.vtensor<[1,2,3],f32>, %w: !torch.vtensor<[1,12,3],f32>, %r: !torch.vtensor<[1,12,4],f32>, %b: !torch.vtensor<[1,24],f32>) -> !torch.vtensor<[1,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 3 : si64} {
  %0 = torch.operator "onnx.GRU"(%x, %w, %r, %b) {torch.onnx.hidden_size = 4 : si64, torch.onnx.linear_before_reset = 1 : si64} : (!torch.vtensor<[1,2,3],f32>, !torch.vtensor<[1,12,3],f32>, !torch.vtensor<[1,12,4],f32>, !torch.vtensor<[1,24],f32>) -> !torch.vtensor<[1,1,2,4],f32>
  return %0 : !torch.vtensor<[1,1,2,4],f32>
}

// -----

// GRU-14 with layout 1, bidirectional: X [B, T, I] is made time-major, Y [T, D, B, H] batch-major.
// CHECK-LABEL: func.func @gru_layout1_bidirectional
// CHECK: %[[X:.*]] = torch.aten.transpose.int %arg0, %int0, %int1 : !torch.vtensor<[2,3,5],f32>, !torch.int, !torch.int -> !torch.vtensor<[3,2,5],f32>
// CHECK: torch.aten.matmul %[[X]]
// CHECK: torch.aten.matmul %[[X]]
// CHECK: %[[Y:.*]] = torch.aten.stack {{.*}} -> !torch.vtensor<[3,2,2,4],f32>
// CHECK: torch.aten.permute %[[Y]], {{.*}} -> !torch.vtensor<[2,3,2,4],f32>
// CHECK: %[[YH:.*]] = torch.aten.stack {{.*}} -> !torch.vtensor<[2,2,4],f32>
// CHECK: torch.aten.transpose.int %[[YH]], %int0{{.*}}, %int1{{.*}} -> !torch.vtensor<[2,2,4],f32>
func.func @gru_layout1_bidirectional(%x: !torch.vtensor<[2,3,5],f32>, %w: !torch.vtensor<[2,12,5],f32>, %r: !torch.vtensor<[2,12,4],f32>) -> (!torch.vtensor<[2,3,2,4],f32>, !torch.vtensor<[2,2,4],f32>) attributes {torch.onnx_meta.opset_version = 22 : si64} {
  %0:2 = torch.operator "onnx.GRU"(%x, %w, %r) {torch.onnx.hidden_size = 4 : si64, torch.onnx.layout = 1 : si64, torch.onnx.direction = "bidirectional"} : (!torch.vtensor<[2,3,5],f32>, !torch.vtensor<[2,12,5],f32>, !torch.vtensor<[2,12,4],f32>) -> (!torch.vtensor<[2,3,2,4],f32>, !torch.vtensor<[2,2,4],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2,3,2,4],f32>, !torch.vtensor<[2,2,4],f32>
}

// -----

// LSTM-1 with peepholes (P: i, o, f), clip and input_forget (f = 1 - i).
// CHECK-LABEL: func.func @lstm_peepholes_input_forget
// CHECK: %[[PI:.*]] = torch.aten.slice.Tensor %{{.*}}, %{{.*}}, %int0{{.*}}, %int4{{.*}} -> !torch.vtensor<[4],f32>
// CHECK: %[[PO:.*]] = torch.aten.slice.Tensor %{{.*}}, %{{.*}}, %int4{{.*}}, %int8{{.*}} -> !torch.vtensor<[4],f32>
// CHECK: %[[H0:.*]] = torch.aten.full
// CHECK: %[[C0:.*]] = torch.aten.full
// CHECK: %[[PIC:.*]] = torch.aten.mul.Tensor %[[PI]], %[[C0]]
// CHECK: %[[IPRE:.*]] = torch.aten.add.Tensor %{{.*}}, %[[PIC]]
// CHECK: %[[ICLIP:.*]] = torch.aten.clamp %[[IPRE]]
// CHECK: %[[I:.*]] = torch.aten.sigmoid %[[ICLIP]]
// CHECK: %[[F:.*]] = torch.aten.rsub.Scalar %[[I]], %float1.000000e00
// CHECK: torch.aten.mul.Tensor %[[F]], %[[C0]]
// CHECK: %[[C1:.*]] = torch.aten.add.Tensor
// CHECK: torch.aten.mul.Tensor %[[PO]], %[[C1]]
func.func @lstm_peepholes_input_forget(%x: !torch.vtensor<[1,2,3],f32>, %w: !torch.vtensor<[1,16,3],f32>, %r: !torch.vtensor<[1,16,4],f32>, %p: !torch.vtensor<[1,12],f32>) -> !torch.vtensor<[1,2,4],f32> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %none = torch.constant.none
  %0:3 = torch.operator "onnx.LSTM"(%x, %w, %r, %none, %none, %none, %none, %p) {torch.onnx.hidden_size = 4 : si64, torch.onnx.clip = 2.000000e+00 : f32, torch.onnx.input_forget = 1 : si64} : (!torch.vtensor<[1,2,3],f32>, !torch.vtensor<[1,16,3],f32>, !torch.vtensor<[1,16,4],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1,12],f32>) -> (!torch.none, !torch.none, !torch.vtensor<[1,2,4],f32>)
  return %0#2 : !torch.vtensor<[1,2,4],f32>
}

// -----

// LSTM-14 with a dynamic length and sequence_lens: a torch.prim.Loop carrying H, C and the Y
// buffer; a step past an entry's length keeps its state and outputs zero.
// CHECK-LABEL: func.func @lstm_dynamic_length
// CHECK: %[[T:.*]] = torch.aten.size.int %arg0, %int0
// CHECK: %[[LENGTHS:.*]] = torch.aten.to.dtype %arg3
// CHECK: %[[PROJ:.*]] = torch.aten.matmul %arg0
// CHECK: %[[LOOP:.*]]:3 = torch.prim.Loop %[[T]], %true, init(
// CHECK: ^bb0(%[[STEP:.*]]: !torch.int, %[[H:.*]]: !torch.vtensor<[?,4],f32>, %[[C:.*]]: !torch.vtensor<[?,4],f32>, %[[YBUF:.*]]: !torch.vtensor<[?,?,4],f32>):
// CHECK: torch.aten.select.int %[[PROJ]], %{{.*}}, %[[STEP]]
// CHECK: %[[VALID:.*]] = torch.aten.gt.Scalar %[[LENGTHS]], %[[STEP]]
// CHECK: %[[MASK:.*]] = torch.aten.unsqueeze %[[VALID]]
// CHECK: %[[NEWH:.*]] = torch.aten.where.self %[[MASK]], %{{.*}}, %[[H]]
// CHECK: %[[NEWC:.*]] = torch.aten.where.self %[[MASK]], %{{.*}}, %[[C]]
// CHECK: torch.aten.where.ScalarOther %[[MASK]]
// CHECK: %[[NEWY:.*]] = torch.aten.slice_scatter %[[YBUF]], {{.*}}, %[[STEP]], %{{.*}}
// CHECK: torch.prim.Loop.condition %true, iter(%[[NEWH]], %[[NEWC]], %[[NEWY]] :
// An entry of length 0 ends with zero states.
// CHECK: %[[ZEROS:.*]] = torch.aten.full
// CHECK: %[[NONEMPTY:.*]] = torch.aten.gt.Scalar %[[LENGTHS]], %int0
// CHECK: %[[NONEMPTY_MASK:.*]] = torch.aten.unsqueeze %[[NONEMPTY]]
// CHECK: torch.aten.where.self %[[NONEMPTY_MASK]], %[[LOOP]]#0, %[[ZEROS]]
// CHECK: %[[FINAL_C:.*]] = torch.aten.where.self %[[NONEMPTY_MASK]], %[[LOOP]]#1, %[[ZEROS]]
// CHECK: torch.aten.unsqueeze %[[LOOP]]#2, {{.*}} -> !torch.vtensor<[?,1,?,4],f32>
// CHECK: torch.aten.unsqueeze %[[FINAL_C]], {{.*}} -> !torch.vtensor<[1,?,4],f32>
func.func @lstm_dynamic_length(%x: !torch.vtensor<[?,?,3],f32>, %w: !torch.vtensor<[1,16,3],f32>, %r: !torch.vtensor<[1,16,4],f32>, %lens: !torch.vtensor<[?],si32>) -> (!torch.vtensor<[?,1,?,4],f32>, !torch.vtensor<[1,?,4],f32>) attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %none = torch.constant.none
  %0:3 = torch.operator "onnx.LSTM"(%x, %w, %r, %none, %lens) {torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[?,?,3],f32>, !torch.vtensor<[1,16,3],f32>, !torch.vtensor<[1,16,4],f32>, !torch.none, !torch.vtensor<[?],si32>) -> (!torch.vtensor<[?,1,?,4],f32>, !torch.none, !torch.vtensor<[1,?,4],f32>)
  return %0#0, %0#2 : !torch.vtensor<[?,1,?,4],f32>, !torch.vtensor<[1,?,4],f32>
}

// -----

// The reverse direction of a dynamic length reads and writes step T-1-t.
// CHECK-LABEL: func.func @rnn_reverse_dynamic_length
// CHECK: %[[T:.*]] = torch.aten.size.int %arg0, %int0
// CHECK: torch.prim.Loop %[[T]]
// CHECK: ^bb0(%[[STEP:.*]]: !torch.int
// CHECK: %[[LAST:.*]] = torch.aten.sub.int %[[T]], %int1
// CHECK: %[[REVERSED:.*]] = torch.aten.sub.int %[[LAST]], %[[STEP]]
// CHECK: torch.aten.select.int %{{.*}}, %{{.*}}, %[[REVERSED]]
func.func @rnn_reverse_dynamic_length(%x: !torch.vtensor<[?,2,3],f32>, %w: !torch.vtensor<[1,4,3],f32>, %r: !torch.vtensor<[1,4,4],f32>) -> !torch.vtensor<[1,2,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0:2 = torch.operator "onnx.RNN"(%x, %w, %r) {torch.onnx.hidden_size = 4 : si64, torch.onnx.direction = "reverse"} : (!torch.vtensor<[?,2,3],f32>, !torch.vtensor<[1,4,3],f32>, !torch.vtensor<[1,4,4],f32>) -> (!torch.none, !torch.vtensor<[1,2,4],f32>)
  return %0#1 : !torch.vtensor<[1,2,4],f32>
}
