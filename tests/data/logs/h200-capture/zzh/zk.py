# zk.py PORT WAIT_S ACTION... (Z161; Z186 adds chatsys/chatuu, big:N, ZK_VERBOSE health retries): an HTTP client of a vllm serve; waits for /health, then runs the actions.
#   cmpl[:N]      POST /v1/completions, prompt token ids, max_tokens N (default 8)
#   cmplnomax     POST /v1/completions, prompt token ids, no max_tokens (server defaults)
#   text:WORDS    POST /v1/completions with a text prompt (underscores = spaces), max_tokens 8
#   chat          POST /v1/chat/completions, one user message, max_tokens 8
#   lp:K          POST /v1/completions with logprobs K
#   tok:N         POST /v1/completions, an N-token prompt (random ids), max_tokens 8 (Z180)
#   plp:N         POST /v1/completions, an N-token prompt with prompt_logprobs 1, max_tokens 1
#   chatsys       POST /v1/chat/completions, a system message then a user message (Z186)
#   chatuu        POST /v1/chat/completions, two user messages in a row (Z186)
#   big:N         POST /v1/completions, text prompt, max_tokens N (Z186)
#   sleep:S       wait S seconds
#   touch:PATH    create PATH (a marker for the harness)
#   waitfile:PATH wait until PATH exists (max 120 s)
import json, os, random, sys, time, urllib.request, urllib.error
port, wait_s, acts = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
base = f"http://127.0.0.1:{port}"
model = os.environ.get("ZK_MODEL", "")
def req(path, body=None, timeout=120):
    data = None if body is None else json.dumps(body).encode()
    r = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(r, timeout=timeout) as f:
            return f.status, f.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except Exception as e:
        return None, f"{type(e).__name__}: {e}"
t0 = time.time()
while True:
    s, e = req("/health", timeout=3)
    if s == 200: break
    if os.environ.get("ZK_VERBOSE"):
        print(f"[client] GET {base}/health -> {s if s is not None else e}; server not ready, retrying in 2s", flush=True)
    if time.time() - t0 > wait_s:
        print(f"[client] {base}/health not ready after {wait_s}s", flush=True); sys.exit(1)
    time.sleep(2)
print(f"[client] {base}/health 200 after {time.time() - t0:.0f}s", flush=True)
rnd = random.Random(7)
for a in acts:
    k, _, v = a.partition(":")
    if k == "sleep": time.sleep(float(v)); continue
    if k == "touch": open(v, "w").close(); continue
    if k == "waitfile":
        for _ in range(120):
            if os.path.exists(v): break
            time.sleep(1)
        continue
    if k == "chat":
        path, body = "/v1/chat/completions", {"model": model, "messages": [{"role": "user", "content": "w5 w17 w99"}], "max_tokens": 8}
    elif k == "chatsys":
        path, body = "/v1/chat/completions", {"model": model, "messages": [
            {"role": "system", "content": "You are a helpful assistant w7 w8"}, {"role": "user", "content": "w5 w17 w99"}], "max_tokens": 8}
    elif k == "chatuu":
        path, body = "/v1/chat/completions", {"model": model, "messages": [
            {"role": "user", "content": "w5 w17"}, {"role": "user", "content": "w99 w100"}], "max_tokens": 8}
    elif k == "big":
        path, body = "/v1/completions", {"model": model, "prompt": "w12 w907 w33 w15", "max_tokens": int(v)}
    elif k == "text":
        path, body = "/v1/completions", {"model": model, "prompt": v.replace("_", " "), "max_tokens": 8}
    elif k == "tok":
        n = int(v); path = "/v1/completions"
        body = {"model": model, "prompt": [rnd.randrange(3, 1000) for _ in range(n)], "max_tokens": 8}
    elif k == "plp":
        n = int(v); path = "/v1/completions"
        body = {"model": model, "prompt": [rnd.randrange(3, 1000) for _ in range(n)], "max_tokens": 1, "prompt_logprobs": 1}
    else:
        path = "/v1/completions"
        body = {"model": model, "prompt": [5, 17, 99, 300, rnd.randrange(3, 1000)]}
        if k == "cmpl": body["max_tokens"] = int(v or 8)
        if k == "lp": body.update(max_tokens=4, logprobs=int(v))
    t = time.time()
    s, txt = req(path, body, timeout=float(os.environ.get("ZK_TIMEOUT", "120")))
    shown = {kk: vv for kk, vv in body.items() if kk != "prompt"}
    if k in ("plp", "tok"): shown["prompt"] = f"<{len(body['prompt'])} token ids>"
    elif "prompt" in body: shown["prompt"] = body["prompt"]
    print(f"[client] POST {path} {json.dumps(shown)} -> {s} in {time.time() - t:.1f}s: {txt[:600]}", flush=True)
