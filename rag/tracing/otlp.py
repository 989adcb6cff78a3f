"""Traces as OpenTelemetry's OTLP JSON (``ExportTraceServiceRequest``): one span per run.

The trace id is the trace's UUID (32 hex digits), a span id the last 16 hex digits of the
run's UUID, and ``parentSpanId`` links each run to its parent, so Jaeger, Tempo or Phoenix
rebuild the same tree. Attributes follow OpenInference (what Phoenix reads:
``openinference.span.kind``, ``input.value``, ``output.value``, ``llm.token_count.*``,
``metadata``, ``tag.tags``) plus ``langsmith.trace.session_name`` and ``rag.run_type``.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Iterable

__all__ = ["to_otlp", "span_of"]

_KINDS = {"chain": "CHAIN", "llm": "LLM", "chat_model": "LLM", "retriever": "RETRIEVER", "tool": "TOOL",
          "embedding": "EMBEDDING", "prompt": "CHAIN", "parser": "CHAIN"}
_SPAN_KIND_INTERNAL = 1
_STATUS_OK, _STATUS_ERROR = 1, 2


def _nanos(text: str | None) -> str:
    # OTLP JSON writes 64-bit integers as strings.
    if not text:
        return "0"
    moment = datetime.fromisoformat(text)
    return str(int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000)


def _attribute(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    if isinstance(value, str):
        return {"key": key, "value": {"stringValue": value}}
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return {"key": key, "value": {"arrayValue": {"values": [{"stringValue": item} for item in value]}}}
    return {"key": key, "value": {"stringValue": json.dumps(value, ensure_ascii=False)}}


def _span_id(run_id: str) -> str:
    return run_id.replace("-", "")[-16:]


def span_of(run: dict[str, Any]) -> dict[str, Any]:
    """One run row (as :meth:`~rag.tracing.TraceStore.get_trace` returns it) as an OTLP span."""
    attributes = [_attribute("openinference.span.kind", _KINDS.get(run["run_type"], "CHAIN")),
                  _attribute("rag.run_type", run["run_type"]),
                  _attribute("langsmith.trace.session_name", run["project"]),
                  _attribute("langsmith.span.dotted_order", run["dotted_order"])]
    for key, value in (("input.value", run.get("inputs")), ("output.value", run.get("outputs"))):
        if value is not None:
            attributes.append(_attribute(key, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)))
            attributes.append(_attribute(key.replace(".value", ".mime_type"),
                                         "text/plain" if isinstance(value, str) else "application/json"))
    for column, key in (("input_tokens", "prompt"), ("output_tokens", "completion"), ("total_tokens", "total")):
        if run.get(column) is not None:
            attributes.append(_attribute(f"llm.token_count.{key}", int(run[column])))
    if run.get("tags"):
        attributes.append(_attribute("tag.tags", list(run["tags"])))
    if run.get("metadata"):
        attributes.append(_attribute("metadata", run["metadata"]))
    if run.get("notes"):
        attributes.append(_attribute("rag.notes", list(run["notes"])))
    span: dict[str, Any] = {
        "traceId": run["trace_id"].replace("-", ""), "spanId": _span_id(run["id"]), "name": run["name"],
        "kind": _SPAN_KIND_INTERNAL, "startTimeUnixNano": _nanos(run["start_time"]),
        "endTimeUnixNano": _nanos(run.get("end_time") or run["start_time"]), "attributes": attributes,
        "status": {"code": _STATUS_ERROR, "message": run["error"] or ""} if run["status"] == "error"
        else {"code": _STATUS_OK},
    }
    if run.get("parent_run_id"):
        span["parentSpanId"] = _span_id(run["parent_run_id"])
    return span


def to_otlp(traces: Iterable[dict[str, Any]], *, service_name: str = "rag") -> dict[str, Any]:
    """``traces`` (each as :meth:`~rag.tracing.TraceStore.get_trace` returns it) as one OTLP
    JSON document: one resource (``service.name`` = ``service_name``), one scope
    (``rag.tracing``), every run a span.

    >>> doc = to_otlp([])
    >>> doc["resourceSpans"][0]["scopeSpans"][0]["scope"]["name"]
    'rag.tracing'
    """
    spans = [span_of(run) for trace in traces for run in trace["runs"]]
    return {"resourceSpans": [{
        "resource": {"attributes": [_attribute("service.name", service_name)]},
        "scopeSpans": [{"scope": {"name": "rag.tracing"}, "spans": spans}],
    }]}
