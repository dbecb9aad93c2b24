"""A loopback OpenAI-compatible chat server with deterministic replies, for the tools that call a
model over HTTP (EvalScope). It answers the arithmetic questions of ../data: it finds `a + b`
in the prompt and the option letter whose text is the sum, and answers right or wrong by a
fixed rule per model name. No network beyond 127.0.0.1.

Usage: python mock_openai.py PORT
"""
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def reply(model: str, prompt: str) -> str:
    m = re.search(r"(\d+) \+ (\d+) = \?", prompt)
    if not m:
        return "I do not know."
    a, b = int(m.group(1)), int(m.group(2))
    options = dict(re.findall(r"^\s*([A-J])[.):]\s*(-?\d+)\s*$", prompt, flags=re.M))
    right = next((k for k, v in options.items() if int(v) == a + b), "A")
    wrong = "ABCD"[("ABCD".index(right) + 1) % 4]
    miss = (a * 7 + b) % 5 == 0 if model == "model-a" else (a + b * 3) % 3 == 0
    if model == "model-b" and a % 6 == 0:
        return "Hard to say."  # no letter at all
    return f"ANSWER: {wrong if miss else right}"


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        prompt = "\n".join(
            m["content"] if isinstance(m["content"], str) else " ".join(p.get("text", "") for p in m["content"])
            for m in body.get("messages", [])
        )
        text = reply(body.get("model", ""), prompt)
        n_in, n_out = len(prompt.split()), len(text.split())
        out = {
            "id": "chatcmpl-mock",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out},
        }
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
