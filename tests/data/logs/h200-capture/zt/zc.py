# zc.py PORT WAIT_S ACTION...   a tiny HTTP client (urllib only)
#   ok[:MODEL]            POST /v1/completions with token ids (the server runs with --skip-tokenizer-init)
#   post:PATH[:JSON]      POST PATH with the JSON body
#   get:PATH              GET PATH
#   sh:CMD | sleep:S
#   waitdead:S            poll /health until it fails (at most S seconds)
import json, os, subprocess, sys, time, urllib.error, urllib.request
port, wait = sys.argv[1], int(sys.argv[2])
B = f"http://127.0.0.1:{port}"
M = os.environ.get("ZC_MODEL", "/workspace/models/tiny-llama")
TO = float(os.environ.get("ZC_TO", "120"))
T0 = time.time()
def say(m): print(f"[client t={time.time() - T0:.0f}s] {m}", flush=True)
def call(method, path, body=None, to=TO):
    data = None if body is None else json.dumps(body).encode()
    r = urllib.request.Request(B + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        resp = urllib.request.urlopen(r, timeout=to)
        say(f"{method} {path} {resp.status} {resp.read()[:200]!r}")
        return True
    except urllib.error.HTTPError as e:
        say(f"{method} {path} {e.code} {e.read()[:400]!r}")
    except Exception as e:
        say(f"{method} {path} failed: {e!r}")
    return False
ok = False
for i in range(wait):
    try:
        urllib.request.urlopen(B + "/health", timeout=2); ok = True; break
    except Exception as e:
        last = e; time.sleep(1)
say(f"GET {B}/health ok={ok}" + ("" if ok else f" last error: {last!r}"))
if not ok:
    sys.exit(1)
for a in sys.argv[3:]:
    k, _, v = a.partition(":")
    if k == "ok":
        call("POST", "/v1/completions", {"model": v or M, "prompt": [5, 17, 99, 300, 512, 7, 8, 9], "max_tokens": 16})
    elif k == "post":
        path, _, js = v.partition(":")
        call("POST", path, json.loads(js) if js else None)
    elif k == "get":
        call("GET", v)
    elif k == "sh":
        say(f"$ {v}"); subprocess.run(v, shell=True)
    elif k == "sleep":
        time.sleep(float(v))
    elif k == "waitdead":
        t = time.time()
        while time.time() - t < float(v):
            try:
                urllib.request.urlopen(B + "/health", timeout=3); time.sleep(1)
            except urllib.error.HTTPError as e:
                say(f"GET /health {e.code}"); break
            except Exception as e:
                say(f"GET /health failed: {e!r}"); break
        else:
            say(f"GET /health still ok after {v}s")
say("done")
