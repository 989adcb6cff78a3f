"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 (stdlib only).

Each request pops the next scripted reply; every request's JSON body and headers are kept.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict -> JSON; str -> raw text
    headers: dict[str, str] = field(default_factory=dict)
    events: Optional[list[Any]] = None  # server-sent events: dicts (JSON) or raw strings


def completion(content: str = "Hello!", *, tool_calls: Optional[list[dict]] = None, usage: bool = True) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
                            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    if usage:
        body["usage"] = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    return body


def delta_event(content: Optional[str] = None, *, tool_calls: Optional[list] = None, finish: Optional[str] = None) -> dict:
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    return {"id": "chatcmpl-2", "model": "test-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


class ScriptedServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                owner.requests.append(json.loads(self.rfile.read(length) or b"{}"))
                owner.headers.append(dict(self.headers))
                reply = owner.replies.pop(0) if owner.replies else Reply(500, {"error": {"message": "script empty"}})
                if reply.events is not None:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for event in reply.events:
                        data = event if isinstance(event, str) else json.dumps(event)
                        self.wfile.write(f"data: {data}\n\n".encode())
                        self.wfile.flush()
                    self.close_connection = True
                    return
                payload = (reply.body if isinstance(reply.body, str) else json.dumps(reply.body)).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def __enter__(self) -> "ScriptedServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
