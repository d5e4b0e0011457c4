# zq.py PORT WAIT_S ACTION...   tiny HTTP client (urllib only), after Z90's zc.py
#   comp                 POST /v1/completions with token ids (server runs with --skip-tokenizer-init)
#   text                 POST /v1/completions with a text prompt
#   json                 POST /v1/completions with response_format json_schema (text prompt)
#   plp:N                POST /v1/completions, N-token prompt, prompt_logprobs 1 (an eval harness's loglikelihood call)
#   post:PATH | get:PATH | noauth:PATH (GET without the API key)
#   tls                  a TLS ClientHello to the plain-HTTP port (a scanner), junk: raw junk bytes
#   sh:CMD | sleep:S | waitfile:PATH
import json, os, random, socket, ssl, subprocess, sys, time, urllib.error, urllib.request
port, wait = sys.argv[1], int(sys.argv[2])
B = f"http://127.0.0.1:{port}"
M = os.environ.get("ZQ_MODEL", "/workspace/models/tiny-llama")
KEY = os.environ.get("ZQ_KEY", "")
TO = float(os.environ.get("ZQ_TO", "120"))
VOCAB = int(os.environ.get("ZQ_VOCAB", "1024"))
T0 = time.time()
def say(m): print(f"[client t={time.time() - T0:.0f}s] {m}", flush=True)
def call(method, path, body=None, to=TO, auth=True):
    data = None if body is None else json.dumps(body).encode()
    h = {"Content-Type": "application/json"}
    if KEY and auth:
        h["Authorization"] = f"Bearer {KEY}"
    r = urllib.request.Request(B + path, data=data, method=method, headers=h)
    try:
        resp = urllib.request.urlopen(r, timeout=to)
        say(f"{method} {path} {resp.status} {resp.read()[:300]!r}")
        return True
    except urllib.error.HTTPError as e:
        say(f"{method} {path} {e.code} {e.read()[:600]!r}")
    except Exception as e:
        say(f"{method} {path} failed: {e!r}")
    return False
ok = False
last = None
for i in range(wait):
    try:
        urllib.request.urlopen(B + "/health", timeout=2); ok = True; break
    except Exception as e:
        last = e; time.sleep(1)
say(f"GET {B}/health ok={ok}" + ("" if ok else f" last error: {last!r}"))
if not ok:
    sys.exit(1)
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"},
          "email": {"type": "string"}}, "required": ["name", "age", "email"]}
for a in sys.argv[3:]:
    k, _, v = a.partition(":")
    if k == "comp":
        call("POST", "/v1/completions", {"model": M, "prompt": [5, 17, 99, 300, 512, 7, 8, 9], "max_tokens": 16})
    elif k == "text":
        call("POST", "/v1/completions", {"model": M, "prompt": "def encode(obj):", "max_tokens": 16})
    elif k == "json":
        call("POST", "/v1/completions", {"model": M, "prompt": "Return the user record as JSON:", "max_tokens": 48,
             "response_format": {"type": "json_schema", "json_schema": {"name": "user", "schema": SCHEMA}}})
    elif k == "plp":
        n = int(v); rnd = random.Random(7)
        say(f"POST /v1/completions prompt of {n} tokens, max_tokens 1, prompt_logprobs 1")
        call("POST", "/v1/completions", {"model": M, "prompt": [rnd.randrange(3, VOCAB) for _ in range(n)],
             "max_tokens": 1, "prompt_logprobs": 1})
    elif k == "post":
        call("POST", v)
    elif k == "get":
        call("GET", v)
    elif k == "noauth":
        call("GET", v, auth=False)
    elif k == "tls":
        try:
            ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
            with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as s:
                with ctx.wrap_socket(s, server_hostname="127.0.0.1") as t:
                    say(f"TLS handshake to :{port} unexpectedly ok")
        except Exception as e:
            say(f"TLS probe to :{port}: {e!r}")
    elif k == "junk":
        try:
            with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as s:
                s.sendall(b"\x00\x0e8\xa0\x1f\x9d\xcf\x11SSH-2.0-Go\r\n"); s.settimeout(3); d = s.recv(200)
                say(f"junk probe to :{port}: got {d[:80]!r}")
        except Exception as e:
            say(f"junk probe to :{port}: {e!r}")
    elif k == "sh":
        say(f"$ {v}"); subprocess.run(v, shell=True)
    elif k == "sleep":
        time.sleep(float(v))
    elif k == "waitfile":
        t = time.time()
        while not os.path.exists(v) and time.time() - t < 60:
            time.sleep(0.2)
say("done")
