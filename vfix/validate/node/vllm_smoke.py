#!/usr/bin/env python3
"""vLLM smoke run on one node: launch, wait, probe, ramp, tear down — and record what was seen.

Standard library only (pynvml or nvidia-smi for GPU memory when present). It observes; the
controller (vfix.validate.vllm_judge) decides. One JSON document goes to --output:
per server launch (the requested TP, then TP=1 when --compare-tp1 and TP > 1): readiness or
death, ranks initialised (from the log), /v1/models, a temperature-0 fixed-seed completion's
token ids, a request-length ramp up to max-model-len, one request past it, per-GPU memory
while loaded, and a verified teardown (no process of the server's session, GPU memory back).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

SCHEMA_VERSION = 1
RANK_LINE = re.compile(r"rank (\d+) in world size (\d+) is assigned as")
NCCL_INIT_LINE = re.compile(r"comm \S+ rank (\d+) nranks (\d+) .*Init COMPLETE")
PROMPT = [1, 2, 3, 4, 5]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--tp", type=int, default=1)
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--max-model-len", type=int, default=512)
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--serve-cmd",
                        default=f"{sys.executable} -m vllm.entrypoints.cli.main serve",
                        help="command that starts the server; model and options are appended")
    parser.add_argument("--extra-args", default="", help="more `vllm serve` options")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the server")
    parser.add_argument("--ready-timeout-s", type=float, default=600)
    parser.add_argument("--request-timeout-s", type=float, default=120)
    parser.add_argument("--teardown-timeout-s", type=float, default=60)
    parser.add_argument("--compare-tp1", action="store_true")
    parser.add_argument("--ramp-steps", type=int, default=4)
    parser.add_argument("--log-dir", default=".")
    parser.add_argument("--output", required=True)
    args = parser.parse_args(argv)
    if args.tp < 1 or args.max_model_len <= args.max_tokens + len(PROMPT):
        parser.error("need --tp >= 1 and --max-model-len > --max-tokens + 5")
    return args


# --- GPU memory -------------------------------------------------------------------------------


def gpu_memory_mib() -> dict[str, int] | None:
    """Used memory per GPU index, from NVML when importable, else nvidia-smi; None if neither."""
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            return {str(i): int(pynvml.nvmlDeviceGetMemoryInfo(
                pynvml.nvmlDeviceGetHandleByIndex(i)).used) // (1 << 20)
                for i in range(pynvml.nvmlDeviceGetCount())}
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # no NVML here: try the CLI
        pass
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,memory.used",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True,
                             timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    memory = {}
    for line in out.splitlines():
        index, _, used = line.partition(",")
        if used.strip().isdigit():
            memory[index.strip()] = int(used.strip())
    return memory


# --- HTTP -------------------------------------------------------------------------------------


def http(method: str, url: str, body: object = None, timeout: float = 10) -> tuple[int, object]:
    """(status, decoded JSON or text); status 0 when nothing answered."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    except (OSError, ValueError) as error:
        return 0, str(error)
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text) if text else None
    except ValueError:
        return status, text


def completion(base: str, model: str, prompt: list[int], max_tokens: int, seed: int,
               timeout: float) -> dict[str, object]:
    body = {"model": model, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0,
            "seed": seed, "return_token_ids": True}
    began = time.monotonic()
    status, answer = http("POST", base + "/v1/completions", body, timeout)
    result: dict[str, object] = {"prompt_len": len(prompt), "status": status,
                                 "seconds": round(time.monotonic() - began, 3)}
    if status == 200 and isinstance(answer, dict) and answer.get("choices"):
        choice = answer["choices"][0]
        result["token_ids"] = choice.get("token_ids")
        result["text"] = choice.get("text")
        result["finish_reason"] = choice.get("finish_reason")
        result["usage"] = answer.get("usage")
    else:
        result["error"] = str(answer)[:500]
    return result


# --- processes --------------------------------------------------------------------------------


def session_pids(session_id: int) -> list[int]:
    """Live processes whose session is the server's (it was started in a new session)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the ")" closing comm: state ppid pgrp session ...; zombies are already gone.
        if fields[0] != "Z" and int(fields[3]) == session_id:
            pids.append(int(entry))
    return pids


def ranks_from_log(path: str) -> dict[str, object]:
    ranks: set[int] = set()
    nccl_ranks: set[int] = set()
    world_size = None
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                match = RANK_LINE.search(line)
                if match:
                    ranks.add(int(match.group(1)))
                    world_size = int(match.group(2))
                match = NCCL_INIT_LINE.search(line)
                if match:
                    nccl_ranks.add(int(match.group(1)))
    except OSError:
        pass
    return {"world_size": world_size, "ranks": sorted(ranks), "nccl_init_ranks": sorted(nccl_ranks)}


# --- one server launch ------------------------------------------------------------------------


def ramp_lengths(max_model_len: int, max_tokens: int, steps: int) -> list[int]:
    top = max_model_len - max_tokens
    lengths = {max(len(PROMPT), top // (2 ** step)) for step in range(steps)}
    return sorted(lengths)


def ramp_prompt(length: int, vocab_size: int) -> list[int]:
    return [5 + (i * 7) % max(1, vocab_size - 10) for i in range(length)]


def vocab_size(model: str) -> int:
    try:
        with open(os.path.join(model, "config.json"), encoding="utf-8") as handle:
            return int(json.load(handle).get("vocab_size", 1000))
    except (OSError, ValueError, TypeError):
        return 1000


def serve(args: argparse.Namespace, tp: int) -> dict[str, object]:
    log_path = os.path.join(args.log_dir, f"vllm-serve-tp{tp}.log")
    command = [
        *shlex.split(args.serve_cmd), args.model, "--tensor-parallel-size", str(tp),
        "--port", str(args.port), "--max-model-len", str(args.max_model_len),
        "--seed", str(args.seed), *shlex.split(args.extra_args),
    ]
    env = dict(os.environ, NCCL_DEBUG=os.environ.get("NCCL_DEBUG", "INFO"))
    env.update(item.split("=", 1) for item in args.env if "=" in item)
    memory_before = gpu_memory_mib()
    run: dict[str, object] = {"tp": tp, "command": command, "log": log_path,
                              "memory_before_mib": memory_before}
    base = f"http://127.0.0.1:{args.port}"
    began = time.monotonic()
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env,
                                  start_new_session=True)
    run["pid"] = server.pid
    try:
        run.update(wait_ready(server, base, args.ready_timeout_s))
        run["ready_s"] = round(time.monotonic() - began, 1)
        if run["ready"]:
            run.update(probe(args, base))
            run["memory_loaded_mib"] = gpu_memory_mib()
    finally:
        run["ranks"] = ranks_from_log(log_path)
        run["teardown"] = teardown(server, args.teardown_timeout_s, memory_before)
    return run


def wait_ready(server: subprocess.Popen, base: str, timeout_s: float) -> dict[str, object]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        code = server.poll()
        if code is not None:
            return {"ready": False, "exit_code": code, "reason": f"server exited with {code}"}
        status, _ = http("GET", base + "/health", timeout=5)
        if status == 200:
            return {"ready": True}
        time.sleep(1)
    return {"ready": False, "exit_code": None, "reason": f"not healthy after {timeout_s:.0f} s"}


def probe(args: argparse.Namespace, base: str) -> dict[str, object]:
    status, models = http("GET", base + "/v1/models", timeout=args.request_timeout_s)
    ids = [m.get("id") for m in models.get("data", [])] if isinstance(models, dict) else []
    model_id = ids[0] if ids else args.model
    first = completion(base, model_id, PROMPT, args.max_tokens, args.seed, args.request_timeout_s)
    again = completion(base, model_id, PROMPT, args.max_tokens, args.seed, args.request_timeout_s)
    vocab = vocab_size(args.model)
    ramp = [completion(base, model_id, ramp_prompt(length, vocab), args.max_tokens, args.seed,
                       args.request_timeout_s)
            for length in ramp_lengths(args.max_model_len, args.max_tokens, args.ramp_steps)]
    past = completion(base, model_id, ramp_prompt(args.max_model_len + 1, vocab), args.max_tokens,
                      args.seed, args.request_timeout_s)
    health_after, _ = http("GET", base + "/health", timeout=10)
    return {"models_status": status, "models": ids, "completion": first, "repeat": again,
            "ramp": ramp, "past_limit": past, "health_after_ramp": health_after}


def teardown(server: subprocess.Popen, timeout_s: float,
             memory_before: dict[str, int] | None) -> dict[str, object]:
    session = server.pid
    signalled = "SIGTERM"
    try:
        os.killpg(session, signal.SIGTERM)
    except ProcessLookupError:
        signalled = "none (already gone)"
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.wait(timeout=timeout_s)
    deadline = time.monotonic() + timeout_s
    while session_pids(session) and time.monotonic() < deadline:
        time.sleep(0.5)
    leftover = session_pids(session)
    if leftover:
        signalled += "+SIGKILL"
        for pid in leftover:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(1)
    memory_after = gpu_memory_mib()
    while (memory_before is not None and memory_after is not None and time.monotonic() < deadline
           and any(memory_after.get(k, 0) > v + 256 for k, v in memory_before.items())):
        time.sleep(1)
        memory_after = gpu_memory_mib()
    return {"signal": signalled, "exit_code": server.poll(), "leftover_pids": leftover,
            "remaining_pids": session_pids(session), "memory_after_mib": memory_after}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.makedirs(args.log_dir, exist_ok=True)
    runs = [serve(args, args.tp)]
    if args.compare_tp1 and args.tp > 1 and runs[0].get("ready"):
        runs.append(serve(args, 1))
    doc = {"tool": "vfix-vllm-smoke", "schema": SCHEMA_VERSION, "model": args.model,
           "tp": args.tp, "max_model_len": args.max_model_len, "max_tokens": args.max_tokens,
           "seed": args.seed, "host": os.uname().nodename, "runs": runs}
    with open(args.output, "w", encoding="utf-8") as handle:
        json.dump(doc, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
