// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// A sequence is a torch.prim.ListConstruct of its elements: SequenceAt at a constant position is
// the element itself, SequenceInsert a new ListConstruct, SequenceLength a literal.
// CHECK-LABEL: func.func @split_at_insert_concat
func.func @split_at_insert_concat(%x: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[],si64>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[ROW0:.*]] = torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[1,4],f32>
  // CHECK: %[[ROW1:.*]] = torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[1,4],f32>
  // CHECK: %[[ROW2:.*]] = torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[1,4],f32>
  // CHECK: torch.prim.ListConstruct %[[ROW0]], %[[ROW1]], %[[ROW2]] : {{.*}} -> !torch.list<vtensor<[1,4],f32>>
  // CHECK: torch.prim.ListConstruct %[[ROW0]], %[[ROW1]], %[[ROW2]], %[[ROW1]] : {{.*}} -> !torch.list<vtensor<[1,4],f32>>
  // CHECK: %[[ROWS:.*]] = torch.prim.ListConstruct %[[ROW0]], %[[ROW1]], %[[ROW2]], %[[ROW1]] : {{.*}} -> !torch.list<vtensor>
  // CHECK: %[[CAT:.*]] = torch.aten.cat %[[ROWS]], %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[4,4],f32>
  // CHECK: %[[Y:.*]] = torch.tensor_static_info_cast %[[CAT]] : !torch.vtensor<[4,4],f32> to !torch.vtensor<[?,4],f32>
  // CHECK: %[[LENGTH:.*]] = torch.vtensor.literal(dense<4> : tensor<si64>) : !torch.vtensor<[],si64>
  // CHECK: return %[[Y]], %[[LENGTH]]
  %0 = torch.operator "onnx.SplitToSequence"(%x) {torch.onnx.axis = 0 : si64, torch.onnx.keepdims = 1 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.list<vtensor<[1,4],f32>>
  %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %2 = torch.operator "onnx.SequenceAt"(%0, %1) : (!torch.list<vtensor<[1,4],f32>>, !torch.vtensor<[],si64>) -> !torch.vtensor<[1,4],f32>
  %3 = torch.operator "onnx.SequenceInsert"(%0, %2) : (!torch.list<vtensor<[1,4],f32>>, !torch.vtensor<[1,4],f32>) -> !torch.list<vtensor<[1,4],f32>>
  %4 = torch.operator "onnx.ConcatFromSequence"(%3) {torch.onnx.axis = 0 : si64} : (!torch.list<vtensor<[1,4],f32>>) -> !torch.vtensor<[?,4],f32>
  %5 = torch.operator "onnx.SequenceLength"(%3) : (!torch.list<vtensor<[1,4],f32>>) -> !torch.vtensor<[],si64>
  return %4, %5 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[],si64>
}

// -----

// keepdims=0 selects; split sizes slice (the sizes need not be equal, the dim may be dynamic
// elsewhere); SequenceErase drops an element; new_axis=1 stacks.
// CHECK-LABEL: func.func @split_variants_erase_stack
func.func @split_variants_erase_stack(%x: !torch.vtensor<[?,3],f32>) -> (!torch.vtensor<[?,2],f32>, !torch.vtensor<[?,3],f32>) attributes {torch.onnx_meta.opset_version = 24 : si64} {
  // CHECK: %[[C0:.*]] = torch.aten.select.int %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[?,3],f32>, !torch.int, !torch.int -> !torch.vtensor<[?],f32>
  // CHECK: %[[C1:.*]] = torch.aten.select.int %arg0, {{.*}} -> !torch.vtensor<[?],f32>
  // CHECK: %[[C2:.*]] = torch.aten.select.int %arg0, {{.*}} -> !torch.vtensor<[?],f32>
  // CHECK: %[[LIST:.*]] = torch.prim.ListConstruct %[[C0]], %[[C2]] : {{.*}} -> !torch.list<vtensor>
  // CHECK: torch.aten.stack %[[LIST]], %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[?,2],f32>
  // CHECK: %[[LEFT:.*]] = torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[?,1],f32>
  // CHECK: %[[RIGHT:.*]] = torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[?,2],f32>
  // SequenceAt sees the element as the slice made it ([?,2]), not as declared ([?,?]).
  // CHECK: %[[PARTS:.*]] = torch.prim.ListConstruct %[[RIGHT]], %[[LEFT]] : {{.*}} -> !torch.list<vtensor>
  // CHECK: torch.aten.cat %[[PARTS]], {{.*}} -> !torch.vtensor<[?,3],f32>
  %columns = torch.operator "onnx.SplitToSequence"(%x) {torch.onnx.axis = 1 : si64, torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[?,3],f32>) -> !torch.list<vtensor<[?],f32>>
  %one = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-2> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %two = torch.operator "onnx.SequenceErase"(%columns, %one) : (!torch.list<vtensor<[?],f32>>, !torch.vtensor<[],si64>) -> !torch.list<vtensor<[?],f32>>
  %stacked = torch.operator "onnx.ConcatFromSequence"(%two) {torch.onnx.axis = -1 : si64, torch.onnx.new_axis = 1 : si64} : (!torch.list<vtensor<[?],f32>>) -> !torch.vtensor<[?,2],f32>
  %sizes = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1, 2]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %parts = torch.operator "onnx.SplitToSequence"(%x, %sizes) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[?,3],f32>, !torch.vtensor<[2],si64>) -> !torch.list<vtensor<[?,?],f32>>
  %front = torch.operator "onnx.SequenceErase"(%parts) : (!torch.list<vtensor<[?,?],f32>>) -> !torch.list<vtensor<[?,?],f32>>
  %minus_one = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %last = torch.operator "onnx.SequenceAt"(%parts, %minus_one) : (!torch.list<vtensor<[?,?],f32>>, !torch.vtensor<[],si64>) -> !torch.vtensor<[?,?],f32>
  %zero = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %swapped = torch.operator "onnx.SequenceInsert"(%front, %last, %zero) : (!torch.list<vtensor<[?,?],f32>>, !torch.vtensor<[?,?],f32>, !torch.vtensor<[],si64>) -> !torch.list<vtensor<[?,?],f32>>
  %joined = torch.operator "onnx.ConcatFromSequence"(%swapped) {torch.onnx.axis = 1 : si64} : (!torch.list<vtensor<[?,?],f32>>) -> !torch.vtensor<[?,3],f32>
  return %stacked, %joined : !torch.vtensor<[?,2],f32>, !torch.vtensor<[?,3],f32>
}

// -----

// SequenceConstruct keeps each element's own type in a list of `?` dims; SequenceEmpty is an
// empty ListConstruct of the declared type; an element more dynamic than a static list element
// type is cast to it.
// CHECK-LABEL: func.func @construct_empty
func.func @construct_empty(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[4,3],f32>, %c: !torch.vtensor<[?,3],f32>) -> (!torch.vtensor<[?,3],f32>, !torch.vtensor<[?,3],f32>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: torch.prim.ListConstruct %arg0, %arg1 : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4,3],f32>) -> !torch.list<vtensor<[?,3],f32>>
  // CHECK: %[[EMPTY:.*]] = torch.prim.ListConstruct  : () -> !torch.list<vtensor<[2,3],f32>>
  // CHECK: %[[C:.*]] = torch.tensor_static_info_cast %arg2 : !torch.vtensor<[?,3],f32> to !torch.vtensor<[2,3],f32>
  // CHECK: torch.prim.ListConstruct %[[C]] : (!torch.vtensor<[2,3],f32>) -> !torch.list<vtensor<[2,3],f32>>
  %0 = torch.operator "onnx.SequenceConstruct"(%a, %b) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4,3],f32>) -> !torch.list<vtensor<[?,3],f32>>
  %1 = torch.operator "onnx.ConcatFromSequence"(%0) {torch.onnx.axis = 0 : si64} : (!torch.list<vtensor<[?,3],f32>>) -> !torch.vtensor<[?,3],f32>
  %2 = torch.operator "onnx.SequenceEmpty"() {torch.onnx.dtype = 1 : si64} : () -> !torch.list<vtensor<[2,3],f32>>
  %3 = torch.operator "onnx.SequenceInsert"(%2, %c) : (!torch.list<vtensor<[2,3],f32>>, !torch.vtensor<[?,3],f32>) -> !torch.list<vtensor<[2,3],f32>>
  %4 = torch.operator "onnx.ConcatFromSequence"(%3) {torch.onnx.axis = 0 : si64} : (!torch.list<vtensor<[2,3],f32>>) -> !torch.vtensor<[?,3],f32>
  return %1, %4 : !torch.vtensor<[?,3],f32>, !torch.vtensor<[?,3],f32>
}

// -----

// A run-time position over elements of one type: their stack, indexed at (position + n) mod n.
// CHECK-LABEL: func.func @at_run_time_position
func.func @at_run_time_position(%x: !torch.vtensor<[3,2],f32>, %p: !torch.vtensor<[],si32>) -> !torch.vtensor<[1,2],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[ROWS:.*]] = torch.prim.ListConstruct {{.*}} -> !torch.list<vtensor>
  // CHECK: %[[STACK:.*]] = torch.aten.stack %[[ROWS]], %{{.*}} -> !torch.vtensor<[3,1,2],f32>
  // CHECK: %[[P:.*]] = torch.aten.reshape %arg1, {{.*}} -> !torch.vtensor<[1],si32>
  // CHECK: %[[P64:.*]] = torch.aten.to.dtype %[[P]], {{.*}} -> !torch.vtensor<[1],si64>
  // CHECK: %[[N:.*]] = torch.constant.int 3
  // CHECK: %[[SHIFTED:.*]] = torch.aten.add.Scalar %[[P64]], %[[N]], {{.*}} -> !torch.vtensor<[1],si64>
  // CHECK: %[[INDEX:.*]] = torch.aten.remainder.Scalar %[[SHIFTED]], %[[N]] : {{.*}} -> !torch.vtensor<[1],si64>
  // CHECK: %[[PICKED:.*]] = torch.aten.index_select %[[STACK]], %{{.*}}, %[[INDEX]] : {{.*}} -> !torch.vtensor<[1,1,2],f32>
  // CHECK: torch.aten.squeeze.dim %[[PICKED]], {{.*}} -> !torch.vtensor<[1,2],f32>
  %0 = torch.operator "onnx.SplitToSequence"(%x) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3,2],f32>) -> !torch.list<vtensor<[1,2],f32>>
  %1 = torch.operator "onnx.SequenceAt"(%0, %p) : (!torch.list<vtensor<[1,2],f32>>, !torch.vtensor<[],si32>) -> !torch.vtensor<[1,2],f32>
  return %1 : !torch.vtensor<[1,2],f32>
}

// -----

// SequenceMap: the converted body is copied once per element; a tensor operand is passed whole.
// An element whose type refines the body argument's is passed as it is (its static sizes reach
// the copy).
// CHECK-LABEL: func.func @sequence_map
func.func @sequence_map(%x: !torch.vtensor<[2,3],f32>, %w: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: %[[R0:.*]] = torch.aten.select.int %arg0, {{.*}} -> !torch.vtensor<[3],f32>
  // CHECK: %[[R1:.*]] = torch.aten.select.int %arg0, {{.*}} -> !torch.vtensor<[3],f32>
  // CHECK: %[[M0:.*]] = torch.aten.mul.Tensor %[[R0]], %arg1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[?],f32>
  // CHECK: %[[M1:.*]] = torch.aten.mul.Tensor %[[R1]], %arg1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[?],f32>
  // CHECK: torch.prim.ListConstruct %[[M0]], %[[M1]] : (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) -> !torch.list<vtensor<[?],f32>>
  // CHECK-NOT: torch.operator
  %0 = torch.operator "onnx.SplitToSequence"(%x) {torch.onnx.axis = 0 : si64, torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[2,3],f32>) -> !torch.list<vtensor<[3],f32>>
  %1 = torch.operator "onnx.SequenceMap"(%0, %w) : (!torch.list<vtensor<[3],f32>>, !torch.vtensor<[3],f32>) -> !torch.list<vtensor<[?],f32>> {
  ^bb0(%e: !torch.vtensor<[?],f32>, %s: !torch.vtensor<[?],f32>):
    %m = torch.operator "onnx.Mul"(%e, %s) : (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
    torch.operator_terminator %m : !torch.vtensor<[?],f32>
  }
  %2 = torch.operator "onnx.ConcatFromSequence"(%1) {torch.onnx.axis = 0 : si64, torch.onnx.new_axis = 1 : si64} : (!torch.list<vtensor<[?],f32>>) -> !torch.vtensor<[2,3],f32>
  return %2 : !torch.vtensor<[2,3],f32>
}

// -----

// Optional is torch.derefine (of none when empty); OptionalHasElement a literal;
// OptionalGetElement the derefined value; from opset 18 a tensor input holds itself.
// CHECK-LABEL: func.func @optionals
func.func @optionals(%x: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[],i1>, !torch.vtensor<[],i1>, !torch.vtensor<[2],f32>, !torch.vtensor<[],i1>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: torch.derefine %arg0 : !torch.vtensor<[2],f32> to !torch.optional<vtensor<[2],f32>>
  // CHECK: %[[TRUE:.*]] = torch.vtensor.literal(dense<true> : tensor<i1>) : !torch.vtensor<[],i1>
  // CHECK: %[[NONE:.*]] = torch.constant.none
  // CHECK: torch.derefine %[[NONE]] : !torch.none to !torch.optional<vtensor<[2],f32>>
  // CHECK: %[[FALSE:.*]] = torch.vtensor.literal(dense<false> : tensor<i1>) : !torch.vtensor<[],i1>
  // CHECK: %[[TENSOR:.*]] = torch.vtensor.literal(dense<true> : tensor<i1>) : !torch.vtensor<[],i1>
  // CHECK: return %[[TRUE]], %[[FALSE]], %arg0, %[[TENSOR]]
  %0 = torch.operator "onnx.Optional"(%x) : (!torch.vtensor<[2],f32>) -> !torch.optional<vtensor<[2],f32>>
  %1 = torch.operator "onnx.OptionalHasElement"(%0) : (!torch.optional<vtensor<[2],f32>>) -> !torch.vtensor<[],i1>
  %2 = torch.operator "onnx.Optional"() {torch.onnx.type = "tensor(float)"} : () -> !torch.optional<vtensor<[2],f32>>
  %3 = torch.operator "onnx.OptionalHasElement"(%2) : (!torch.optional<vtensor<[2],f32>>) -> !torch.vtensor<[],i1>
  %4 = torch.operator "onnx.OptionalGetElement"(%0) : (!torch.optional<vtensor<[2],f32>>) -> !torch.vtensor<[2],f32>
  %5 = torch.operator "onnx.OptionalHasElement"(%x) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[],i1>
  return %1, %3, %4, %5 : !torch.vtensor<[],i1>, !torch.vtensor<[],i1>, !torch.vtensor<[2],f32>, !torch.vtensor<[],i1>
}

// -----

// An optional sequence: OptionalGetElement gives the list back; Identity passes a sequence on.
// CHECK-LABEL: func.func @optional_sequence
func.func @optional_sequence(%x: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  // CHECK: %[[LIST:.*]] = torch.prim.ListConstruct %{{.*}}, %{{.*}} : {{.*}} -> !torch.list<vtensor<[2],f32>>
  // CHECK: torch.derefine %[[LIST]] : !torch.list<vtensor<[2],f32>> to !torch.optional<list<vtensor<[2],f32>>>
  // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[4],f32>
  %0 = torch.operator "onnx.SplitToSequence"(%x) {torch.onnx.axis = 0 : si64, torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[2,2],f32>) -> !torch.list<vtensor<[2],f32>>
  %1 = torch.operator "onnx.Optional"(%0) : (!torch.list<vtensor<[2],f32>>) -> !torch.optional<list<vtensor<[2],f32>>>
  %2 = torch.operator "onnx.OptionalGetElement"(%1) : (!torch.optional<list<vtensor<[2],f32>>>) -> !torch.list<vtensor<[2],f32>>
  %3 = torch.operator "onnx.Identity"(%2) : (!torch.list<vtensor<[2],f32>>) -> !torch.list<vtensor<[2],f32>>
  %4 = torch.operator "onnx.ConcatFromSequence"(%3) {torch.onnx.axis = 0 : si64} : (!torch.list<vtensor<[2],f32>>) -> !torch.vtensor<[4],f32>
  return %4 : !torch.vtensor<[4],f32>
}

// -----

// The ONNX dialect spelling: !onnx.Seq values are bridged like builtin tensors.
// CHECK-LABEL: func.func @main_graph
module attributes {onnx.opset_version = 17 : i64} {
  func.func @main_graph(%x: tensor<2x3xf32>) -> (tensor<3x3xf32>, tensor<i64>) {
    // CHECK: %[[X:.*]] = builtin.unrealized_conversion_cast %arg0 : tensor<2x3xf32> to !torch.vtensor<[2,3],f32>
    // CHECK: %[[LIST:.*]] = torch.prim.ListConstruct %{{.*}}, %{{.*}} : {{.*}} -> !torch.list<vtensor<[1,3],f32>>
    // CHECK: builtin.unrealized_conversion_cast %[[LIST]] : !torch.list<vtensor<[1,3],f32>> to !onnx.Seq<tensor<1x3xf32>>
    // CHECK: torch.prim.ListConstruct {{.*}} -> !torch.list<vtensor<[?,3],f32>>
    // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[3,3],f32>
    // CHECK: torch.vtensor.literal(dense<2> : tensor<si64>) : !torch.vtensor<[],si64>
    %0 = "onnx.SplitToSequence"(%x) {axis = 0 : si64, keepdims = 1 : si64} : (tensor<2x3xf32>) -> !onnx.Seq<tensor<1x3xf32>>
    %c = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
    %1 = "onnx.SequenceAt"(%0, %c) : (!onnx.Seq<tensor<1x3xf32>>, tensor<i64>) -> tensor<1x3xf32>
    %2 = "onnx.SequenceInsert"(%0, %1) : (!onnx.Seq<tensor<1x3xf32>>, tensor<1x3xf32>) -> !onnx.Seq<tensor<?x3xf32>>
    %3 = "onnx.ConcatFromSequence"(%2) {axis = 0 : si64} : (!onnx.Seq<tensor<?x3xf32>>) -> tensor<3x3xf32>
    %4 = "onnx.SequenceLength"(%0) : (!onnx.Seq<tensor<1x3xf32>>) -> tensor<i64>
    return %3, %4 : tensor<3x3xf32>, tensor<i64>
  }
}

// -----

// SequenceMap in the ONNX dialect spelling: each element enters the body through a bridge to the
// body's builtin argument type; a result more static than declared is cast before its bridge.
// CHECK-LABEL: func.func @main_graph
module attributes {onnx.opset_version = 18 : i64} {
  func.func @main_graph(%x: tensor<2x4xf32>, %w: tensor<4xf32>) -> tensor<?x4xf32> {
    // CHECK: %[[R0:.*]] = torch.aten.select.int {{.*}} -> !torch.vtensor<[4],f32>
    // CHECK: %[[R1:.*]] = torch.aten.select.int {{.*}} -> !torch.vtensor<[4],f32>
    // CHECK: %[[A0:.*]] = builtin.unrealized_conversion_cast %[[R0]] : !torch.vtensor<[4],f32> to tensor<4xf32>
    // CHECK: %[[E0:.*]] = builtin.unrealized_conversion_cast %[[A0]] : tensor<4xf32> to !torch.vtensor<[4],f32>
    // CHECK: %[[M0:.*]] = torch.aten.mul.Tensor %[[E0]], {{.*}} -> !torch.vtensor<[4],f32>
    // CHECK: %[[A1:.*]] = builtin.unrealized_conversion_cast %[[R1]] : !torch.vtensor<[4],f32> to tensor<4xf32>
    // CHECK: %[[E1:.*]] = builtin.unrealized_conversion_cast %[[A1]] : tensor<4xf32> to !torch.vtensor<[4],f32>
    // CHECK: %[[M1:.*]] = torch.aten.mul.Tensor %[[E1]], {{.*}} -> !torch.vtensor<[4],f32>
    // CHECK: %[[LIST:.*]] = torch.prim.ListConstruct %[[M0]], %[[M1]] : {{.*}} -> !torch.list<vtensor<[4],f32>>
    // CHECK: builtin.unrealized_conversion_cast %[[LIST]] : !torch.list<vtensor<[4],f32>> to !onnx.Seq<tensor<4xf32>>
    // CHECK: %[[STACK:.*]] = torch.aten.stack {{.*}} -> !torch.vtensor<[2,4],f32>
    // CHECK: %[[Y:.*]] = torch.tensor_static_info_cast %[[STACK]] : !torch.vtensor<[2,4],f32> to !torch.vtensor<[?,4],f32>
    // CHECK: builtin.unrealized_conversion_cast %[[Y]] : !torch.vtensor<[?,4],f32> to tensor<?x4xf32>
    %0 = "onnx.SplitToSequence"(%x) {axis = 0 : si64, keepdims = 0 : si64} : (tensor<2x4xf32>) -> !onnx.Seq<tensor<4xf32>>
    %1 = "onnx.SequenceMap"(%0, %w) ({
    ^bb0(%e: tensor<4xf32>, %s: tensor<4xf32>):
      %m = "onnx.Mul"(%e, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      "onnx.Yield"(%m) : (tensor<4xf32>) -> ()
    }) : (!onnx.Seq<tensor<4xf32>>, tensor<4xf32>) -> !onnx.Seq<tensor<4xf32>>
    %2 = "onnx.ConcatFromSequence"(%1) {axis = 0 : si64, new_axis = 1 : si64} : (!onnx.Seq<tensor<4xf32>>) -> tensor<?x4xf32>
    return %2 : tensor<?x4xf32>
  }
}

// -----

// A run-time position for SequenceInsert and SequenceErase over elements of one type: each result
// element is selected (position + n where negative; before it e[i], at it the tensor, after it e[i-1]).
// CHECK-LABEL: func.func @insert_erase_at_run_time
func.func @insert_erase_at_run_time(%x: !torch.vtensor<[2,3],f32>, %t: !torch.vtensor<[1,3],f32>, %p: !torch.vtensor<[],si64>) -> !torch.vtensor<[?,3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[ROW0:.*]] = torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[1,3],f32>
  // CHECK: %[[ROW1:.*]] = torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[1,3],f32>
  // CHECK: %[[NEGATIVE:.*]] = torch.aten.lt.Scalar %arg2, %{{.*}} : !torch.vtensor<[],si64>, !torch.int -> !torch.vtensor<[],i1>
  // CHECK: %[[N:.*]] = torch.aten.to.dtype %[[NEGATIVE]], {{.*}} -> !torch.vtensor<[],si64>
  // CHECK: %[[SHIFT:.*]] = torch.aten.mul.Scalar %[[N]], {{.*}} -> !torch.vtensor<[],si64>
  // CHECK: %[[INDEX:.*]] = torch.aten.add.Tensor %arg2, %[[SHIFT]], {{.*}} -> !torch.vtensor<[],si64>
  // CHECK: %[[GT0:.*]] = torch.aten.gt.Scalar %[[INDEX]], {{.*}} -> !torch.vtensor<[],i1>
  // CHECK: %[[OUT0:.*]] = torch.aten.where.self %[[GT0]], %[[ROW0]], %arg1
  // CHECK: %[[EQ1:.*]] = torch.aten.eq.Scalar %[[INDEX]], {{.*}} -> !torch.vtensor<[],i1>
  // CHECK: %[[AT1:.*]] = torch.aten.where.self %[[EQ1]], %arg1, %[[ROW0]]
  // CHECK: %[[GT1:.*]] = torch.aten.gt.Scalar %[[INDEX]], {{.*}} -> !torch.vtensor<[],i1>
  // CHECK: %[[OUT1:.*]] = torch.aten.where.self %[[GT1]], %[[ROW1]], %[[AT1]]
  // CHECK: %[[EQ2:.*]] = torch.aten.eq.Scalar %[[INDEX]], {{.*}} -> !torch.vtensor<[],i1>
  // CHECK: %[[OUT2:.*]] = torch.aten.where.self %[[EQ2]], %arg1, %[[ROW1]]
  // CHECK: torch.prim.ListConstruct %[[OUT0]], %[[OUT1]], %[[OUT2]] : {{.*}} -> !torch.list<vtensor<[1,3],f32>>
  // CHECK: %[[KEEP0:.*]] = torch.aten.where.self %{{.*}}, %[[OUT0]], %[[OUT1]]
  // CHECK: %[[KEEP1:.*]] = torch.aten.where.self %{{.*}}, %[[OUT1]], %[[OUT2]]
  // CHECK: torch.prim.ListConstruct %[[KEEP0]], %[[KEEP1]] : {{.*}} -> !torch.list<vtensor<[1,3],f32>>
  %0 = torch.operator "onnx.SplitToSequence"(%x) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2,3],f32>) -> !torch.list<vtensor<[1,3],f32>>
  %1 = torch.operator "onnx.SequenceInsert"(%0, %t, %p) : (!torch.list<vtensor<[1,3],f32>>, !torch.vtensor<[1,3],f32>, !torch.vtensor<[],si64>) -> !torch.list<vtensor<[1,3],f32>>
  %2 = torch.operator "onnx.SequenceErase"(%1, %p) : (!torch.list<vtensor<[1,3],f32>>, !torch.vtensor<[],si64>) -> !torch.list<vtensor<[1,3],f32>>
  %3 = torch.operator "onnx.ConcatFromSequence"(%2) {torch.onnx.axis = 0 : si64} : (!torch.list<vtensor<[1,3],f32>>) -> !torch.vtensor<[?,3],f32>
  return %3 : !torch.vtensor<[?,3],f32>
}

// -----

// A 1-D run-time split of static length: as many elements, their sizes read with aten.item.
// CHECK-LABEL: func.func @split_sizes_at_run_time
func.func @split_sizes_at_run_time(%x: !torch.vtensor<[2,5],f32>, %split: !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,?],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[S0:.*]] = torch.aten.item %{{.*}} : !torch.vtensor<[],si64> -> !torch.int
  // CHECK: %[[S1:.*]] = torch.aten.item %{{.*}} : !torch.vtensor<[],si64> -> !torch.int
  // CHECK: %[[END0:.*]] = torch.aten.add.int %{{.*}}, %[[S0]]
  // CHECK: %[[P0:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %[[END0]], %{{.*}} -> !torch.vtensor<[2,?],f32>
  // CHECK: %[[END1:.*]] = torch.aten.add.int %[[END0]], %[[S1]]
  // CHECK: %[[P1:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}}, %[[END0]], %[[END1]], %{{.*}} -> !torch.vtensor<[2,?],f32>
  // CHECK: torch.prim.ListConstruct %[[P0]], %[[P1]] : {{.*}} -> !torch.list<vtensor<[2,?],f32>>
  %0 = torch.operator "onnx.SplitToSequence"(%x, %split) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,5],f32>, !torch.vtensor<[2],si64>) -> !torch.list<vtensor<[2,?],f32>>
  %1 = torch.operator "onnx.ConcatFromSequence"(%0) {torch.onnx.axis = 1 : si64} : (!torch.list<vtensor<[2,?],f32>>) -> !torch.vtensor<[2,?],f32>
  return %1 : !torch.vtensor<[2,?],f32>
}
