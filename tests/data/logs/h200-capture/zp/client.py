# client.py PORT WAIT_S MODEL ACTION...   actions: small | long:N | plogprobs:N | sh:CMD | sleep:S
import json, subprocess, sys, time, urllib.request, urllib.error
port, wait, model = sys.argv[1], int(sys.argv[2]), sys.argv[3]
B = f"http://127.0.0.1:{port}"
def say(m):
    print(f"   [client t={time.time() - T0:.0f}s] {m}", flush=True)
T0 = time.time()
ok = False
for i in range(wait):
    try:
        urllib.request.urlopen(B + "/health", timeout=2); ok = True; break
    except Exception:
        time.sleep(1)
say(f"server on {port} healthy: {ok}")
if not ok:
    sys.exit(0)
def req(body, timeout=120):
    r = urllib.request.Request(B + "/v1/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        resp = urllib.request.urlopen(r, timeout=timeout)
        say(f"/v1/completions {resp.status} {resp.read()[:160]!r}")
        return True
    except urllib.error.HTTPError as e:
        say(f"/v1/completions {e.code} {e.read()[:300]!r}")
    except Exception as e:
        say(f"/v1/completions failed: {e!r}")
    return False
for a in sys.argv[4:]:
    k, _, v = a.partition(":")
    if k == "small":
        req({"model": model, "prompt": [1, 2, 3, 4, 5, 6, 7, 8], "max_tokens": 16})
    elif k == "long":
        n = int(v)
        if not req({"model": model, "prompt": [(i * 7919) % 30000 + 10 for i in range(n)], "max_tokens": 16}, 180):
            break
    elif k == "plogprobs":
        n = int(v)
        if not req({"model": model, "prompt": [(i * 104729) % 30000 + 10 for i in range(n)], "max_tokens": 4, "prompt_logprobs": 5}, 180):
            break
    elif k == "sh":
        say(f"$ {v}")
        subprocess.run(v, shell=True)
    elif k == "sleep":
        time.sleep(float(v))
time.sleep(2)
