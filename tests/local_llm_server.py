"""A small OpenAI-compatible chat server for tests, on 127.0.0.1.

It stands in for a model served on this machine (Ollama, llama.cpp server,
vLLM): ``POST /v1/chat/completions``, plain or streamed (server-sent events).
What it replies depends on the question or topic in the last message:

- a word "malformed": prose that is not JSON;
- "slow": waits ``slow_s`` seconds before answering (past the client's timeout);
- "refuse": an OpenAI-style refusal (no content, a ``refusal`` field);
- anything else: fixed JSON of the answer or study-item shape.

``schema`` says whether it accepts ``response_format`` of type json_schema;
when it does not, such a request gets HTTP 400, as servers without
structured output answer. Every request body is kept in ``requests``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER_TEXT = "The Team plan costs $49 per month."
ANSWER = {"sentences": [{"text": ANSWER_TEXT, "citations": [1]}], "covered": True}
ITEMS = {
    "items": [
        {
            "type": "short",
            "question": "How much does the Team plan cost per month?",
            "answer": "$49 per month",
            "citations": [1],
        },
        {
            "type": "mcq",
            "question": "Which plan costs $49 per month?",
            "key": "Team",
            "distractors": ["Starter", "Business", "Enterprise"],
            "citations": [1],
        },
    ]
}
REFUSAL = "I can't help with that request."


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        # A client that timed out closes the socket before a slow reply is
        # written (BrokenPipeError); that is the point of the slow reply.
        pass


class LocalModelServer:
    """Run with ``with LocalModelServer() as server: ... server.base_url``."""

    def __init__(self, *, schema: bool = True, slow_s: float = 3.0) -> None:
        self.schema = schema
        self.slow_s = slow_s
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="local-llm", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> LocalModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def reply_for(self, body: dict) -> tuple[str | None, str | None]:
        """(content, refusal) for a request."""
        messages = body.get("messages", [])
        user = str(messages[-1].get("content", "")) if messages else ""
        ask = next((ln for ln in user.splitlines() if ln.startswith(("Question:", "Topic:"))), user).lower()
        if "malformed" in ask:
            return "Sure! Here is what I found: the Team plan is cheap.", None
        if "slow" in ask:
            time.sleep(self.slow_s)
        if "refuse" in ask:
            return None, REFUSAL
        system = str(messages[0].get("content", "")) if messages else ""
        return json.dumps(ITEMS if "study items" in system else ANSWER), None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": "not found"}})
                fmt = (body.get("response_format") or {}).get("type")
                if fmt == "json_schema" and not server.schema:
                    return self._send(
                        400,
                        {
                            "error": {
                                "message": "response_format json_schema is not supported",
                                "type": "invalid_request_error",
                            }
                        },
                    )
                content, refusal = server.reply_for(body)
                if body.get("stream"):
                    return self._stream(body, content, refusal)
                message = {"role": "assistant", "content": content, "refusal": refusal}
                self._send(200, _completion(body, message, "stop"))

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict, content: str | None, refusal: str | None) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                text = content or ""
                pieces = [text[i : i + 16] for i in range(0, len(text), 16)]
                deltas = [{"role": "assistant", "content": p} for p in pieces]
                if refusal:
                    deltas.append({"role": "assistant", "refusal": refusal})
                for delta in deltas:
                    chunk = _chunk(body, delta, None)
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(f"data: {json.dumps(_chunk(body, {}, 'stop'))}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        return Handler


def _usage(body: dict) -> dict:
    return {"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160}


def _completion(body: dict, message: dict, finish: str) -> dict:
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "local"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": _usage(body),
    }


def _chunk(body: dict, delta: dict, finish: str | None) -> dict:
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "local"),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
