# cl.py PORT WAIT ACTION...  actions: ok | ids:FIRST:N | long:N | burst:N | sh:CMD | sleep:S
import json, subprocess, sys, time, urllib.request, urllib.error, threading
port, wait = sys.argv[1], int(sys.argv[2]); host = "127.0.0.1"
if ":" in port: host, port = port.split(":")
B = f"http://{host}:{port}"; import os; M = os.environ.get("CL_MODEL", "/workspace/models/tiny-llama"); T0 = time.time()
def say(m): print(f"[client t={time.time()-T0:.0f}s] {m}", flush=True)
def req(prompt, mt=16, to=int(os.environ.get("CL_TO", "60"))):
    r = urllib.request.Request(B + "/v1/completions", data=json.dumps({"model": M, "prompt": prompt, "max_tokens": mt}).encode(), headers={"Content-Type": "application/json"})
    try:
        resp = urllib.request.urlopen(r, timeout=to); say(f"POST /v1/completions {resp.status} {resp.read()[:120]!r}")
    except urllib.error.HTTPError as e: say(f"POST /v1/completions {e.code} {e.read()[:300]!r}")
    except Exception as e: say(f"POST /v1/completions failed: {e!r}")
ok = False
for i in range(wait):
    try: urllib.request.urlopen(B + "/health", timeout=2); ok = True; break
    except Exception as e: last = e; time.sleep(1)
say(f"GET {B}/health ok={ok}" + ("" if ok else f" last error: {last!r}"))
if not ok: sys.exit(1)
for a in sys.argv[3:]:
    k, _, v = a.partition(":")
    if k == "ok": req([5, 17, 99, 300, 512, 7, 8, 9])
    elif k == "ids": f, n = map(int, v.split(":")); req([f + i for i in range(n)])
    elif k == "long": req([(i * 37) % 1000 + 3 for i in range(int(v))])
    elif k == "burst":
        th = [threading.Thread(target=req, args=([(i * 11) % 1000 + 3 for i in range(64)], 32, 30)) for _ in range(int(v))]
        [t.start() for t in th]; [t.join() for t in th]
    elif k == "gen":
        n, mt = map(int, v.split(":"))
        th = [threading.Thread(target=req, args=([(i * 13 + j) % 1000 + 3 for j in range(200)], mt, 240)) for i in range(n)]
        [t.start() for t in th]; [t.join() for t in th]
    elif k == "sh": say(f"$ {v}"); subprocess.run(v, shell=True)
    elif k == "nofile":
        pid = subprocess.run(["pgrep", "-of", f"^python3 -m vllm.*--port {port}"], capture_output=True, text=True).stdout.strip()
        cmd = f"prlimit --pid {pid} --nofile={v}:{v}"; say(f"$ {cmd}"); subprocess.run(cmd, shell=True)
        subprocess.run(f"prlimit --pid {pid} --nofile", shell=True)
    elif k == "sleep": time.sleep(float(v))
say("done")
