"""Node order: ONNX graphs must be topologically sorted; we check it, sort when
needed, and name the culprit when a graph has an undefined input or a cycle."""

from collections import deque

import onnx

from ..errors import ImportError_


def node_label(node: onnx.NodeProto, index: int) -> str:
    """How errors and locations name a node: its name, else its op type and first output."""
    if node.name:
        return node.name
    outputs = node.output
    return f"{node.op_type}:{outputs[0] if outputs and outputs[0] else f'#{index}'}"


def subgraphs(node: onnx.NodeProto):
    for attribute in node.attribute:
        if attribute.type == onnx.AttributeProto.GRAPH:
            yield attribute.g
        elif attribute.type == onnx.AttributeProto.GRAPHS:
            yield from attribute.graphs


def free_names(graph: onnx.GraphProto) -> set:
    """Names a graph reads from enclosing scopes."""
    defined = {value.name for value in graph.input} | {tensor.name for tensor in graph.initializer}
    used = set()
    for node in graph.node:
        used.update(name for name in _node_reads(node) if name not in defined)
        defined.update(node.output)
    used.update(output.name for output in graph.output if output.name not in defined)
    return used


def _node_reads(node: onnx.NodeProto) -> list:
    reads = [name for name in node.input if name]
    for graph in subgraphs(node):
        reads.extend(free_names(graph))
    return reads


def ordered_nodes(graph: onnx.GraphProto, available, where: str) -> tuple[list, set]:
    """The nodes of `graph` in an order where every input is defined before use, and the names read.

    `available`: names defined before the first node (inputs, initializers,
    enclosing scopes). `where` prefixes errors (the model file). The names
    read are those of node inputs, of enclosing values subgraphs use, and of
    the graph's outputs.
    """
    nodes = list(graph.node)
    reads = [_node_reads(node) for node in nodes]
    used = {output.name for output in graph.output}
    for names in reads:
        used.update(names)
    defined = set()
    for index, node in enumerate(nodes):
        if any(name not in defined and name not in available for name in reads[index]):
            return _sorted(nodes, reads, available, where), used
        defined.update(node.output)
    return nodes, used


def _sorted(nodes, reads, available, where) -> list:
    producer = {}
    for index, node in enumerate(nodes):
        for output in node.output:
            if output:
                producer.setdefault(output, index)
    waiting_on = [0] * len(nodes)
    consumers = [[] for _ in nodes]
    for index, names in enumerate(reads):
        for name in set(names):
            if name in available and name not in producer:
                continue
            if name not in producer:
                raise ImportError_(
                    f"{where}: node '{node_label(nodes[index], index)}' ({nodes[index].op_type}): "
                    f"input '{name}' is not defined by any graph input, initializer or node"
                )
            waiting_on[index] += 1
            consumers[producer[name]].append(index)
    ready = deque(index for index, count in enumerate(waiting_on) if count == 0)
    order = []
    while ready:
        index = ready.popleft()
        order.append(index)
        for consumer in consumers[index]:
            waiting_on[consumer] -= 1
            if waiting_on[consumer] == 0:
                ready.append(consumer)
    if len(order) < len(nodes):
        stuck = [node_label(nodes[index], index) for index, count in enumerate(waiting_on) if count][:3]
        raise ImportError_(f"{where}: the graph has a cycle through node(s) {', '.join(repr(s) for s in stuck)}")
    return [nodes[index] for index in order]
