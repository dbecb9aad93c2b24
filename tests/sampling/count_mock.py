#!/usr/bin/env python3
"""An OpenAI-compatible upstream for the sampling check: every call gets its own reply
("YES #k"), and the number of calls so far is written to COUNT_FILE.
Usage: count_mock.py PORT_FILE COUNT_FILE"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock, calls = threading.Lock(), [0]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with lock:
            calls[0] += 1
            k = calls[0]
            open(sys.argv[2], "w").write(str(k))
        data = json.dumps({
            "id": f"cmpl-{k}", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": f"YES #{k}"},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
open(sys.argv[1], "w").write(str(server.server_address[1]))
server.serve_forever()
