#!/usr/bin/env python3
"""Test double for `vllm serve` (stdlib only, so it also runs on the SSH test nodes).

Takes `vllm serve`'s argument layout (MODEL --tensor-parallel-size N --port P --max-model-len L
--seed S ...), prints vLLM-shaped log lines (one "rank r in world size n is assigned as" line per
rank) and serves /health, /v1/models and /v1/completions with deterministic token ids. The
FAKE_VLLM_MODE variable picks a misbehaviour for the failure paths:
  die-at-start   exit 1 after a vLLM-like engine-core failure, before serving
  never-ready    serve /health with 503 forever
  missing-rank   log every rank but the last
  tp-drift       token ids depend on the TP size (TP=N disagrees with TP=1)
  linger         leave a child process that ignores SIGTERM (teardown must kill it)
  no-limit       accept prompts past max-model-len
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = os.environ.get("FAKE_VLLM_MODE", "")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--tensor-parallel-size", type=int, default=1)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--max-model-len", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=0)
    args, _unknown = parser.parse_known_args()
    return args


def log(message: str) -> None:
    print(f"(APIServer pid={os.getpid()}) INFO {time.strftime('%m-%d %H:%M:%S')} {message}",
          flush=True)


def tokens(prompt: list[int], count: int, seed: int, tp: int) -> list[int]:
    base = sum(prompt) * 31 + len(prompt) + seed + (tp if MODE == "tp-drift" else 0)
    return [(base + 17 * i) % 1000 for i in range(count)]


def make_handler(args: argparse.Namespace, ready_at: float) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *values: object) -> None:
            log(f'127.0.0.1 - "{self.command} {self.path}" {values[1] if len(values) > 1 else ""}')

        def reply(self, status: int, body: object) -> None:
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self) -> None:
            if self.path == "/health":
                ready = MODE != "never-ready" and time.monotonic() >= ready_at
                self.reply(200 if ready else 503, {})
            elif self.path == "/v1/models":
                self.reply(200, {"object": "list", "data": [
                    {"id": args.model, "object": "model", "max_model_len": args.max_model_len}]})
            else:
                self.reply(404, {"error": "not found"})

        def do_POST(self) -> None:
            if self.path != "/v1/completions":
                self.reply(404, {"error": "not found"})
                return
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            prompt = body.get("prompt") or []
            max_tokens = int(body.get("max_tokens", 16))
            if len(prompt) + max_tokens > args.max_model_len and MODE != "no-limit":
                self.reply(400, {"error": {"message": f"This model's maximum context length is "
                                           f"{args.max_model_len} tokens", "type": "BadRequest"}})
                return
            ids = tokens(prompt, max_tokens, int(body.get("seed") or 0),
                         args.tensor_parallel_size)
            self.reply(200, {"id": "cmpl-fake", "object": "text_completion", "model": args.model,
                             "choices": [{"index": 0, "text": "", "token_ids": ids,
                                          "finish_reason": "length"}],
                             "usage": {"prompt_tokens": len(prompt),
                                       "completion_tokens": max_tokens,
                                       "total_tokens": len(prompt) + max_tokens}})

    return Handler


def main() -> int:
    args = parse_args()
    log(f"non-default args: {{'model': '{args.model}', 'port': {args.port}}}")
    world = args.tensor_parallel_size
    if MODE == "die-at-start":
        print(f"(EngineCore pid={os.getpid()}) ERROR EngineCore failed to start.\n"
              "ModuleNotFoundError: No module named 'flashinfer'", flush=True)
        print("RuntimeError: Engine core initialization failed. See root cause above.", flush=True)
        return 1
    for rank in range(world - 1 if MODE == "missing-rank" else world):
        print(f"(Worker_TP{rank} pid={os.getpid()}) INFO [parallel_state.py:1946] rank {rank} in "
              f"world size {world} is assigned as DP rank 0, PP rank 0, TP rank {rank}", flush=True)
    if MODE == "linger":
        subprocess.Popen([sys.executable, "-c",
                          "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                          "time.sleep(600)"])
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args, time.monotonic() + 1))
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    log(f"Starting vLLM server on http://127.0.0.1:{args.port}")
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        log("[shutdown] API server: shutdown triggered")
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
