#!/usr/bin/env python3
"""Stand-in SGLang engine for the lab tests: GET /health_generate on 127.0.0.1, an ephemeral port.

    engine.py PORT_FILE [FAIL_FILE]   answers 200, or 503 while FAIL_FILE exists
"""
from __future__ import annotations

import http.server
import os
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        if self.path != "/health_generate":
            self.send_error(404)
            return
        failing = len(sys.argv) > 2 and os.path.exists(sys.argv[2])
        self.send_response(503 if failing else 200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(str(server.server_address[1]))
    os.replace(tmp, sys.argv[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
