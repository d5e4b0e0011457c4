#!/usr/bin/env python3
# client.py: load generator for tinyserve (one JSON request per connection). Waits until the server accepts connections.
#   --connect unix:PATH | tcp:HOST:PORT   --n N requests at --rate R/s (--burst K [--bursts B]: B bursts of K at once first)
#   --pause-after N --pause S: a traffic lull;  --mix bad: inject malformed / too long / unsupported / hang-up requests
#   --prompt-logprobs: eval traffic (asks for prompt logprobs);  --shutdown: admin shutdown at the end
import argparse, json, random, socket, sys, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("--connect", required=True)
ap.add_argument("--n", type=int, default=20)
ap.add_argument("--rate", type=float, default=5.0)
ap.add_argument("--burst", type=int, default=0)
ap.add_argument("--bursts", type=int, default=1)
ap.add_argument("--burst-gap", type=float, default=2.0)
ap.add_argument("--prompt-len", type=int, default=120)
ap.add_argument("--max-tokens", type=int, default=8)
ap.add_argument("--prompt-logprobs", action="store_true")
ap.add_argument("--pause-after", type=int, default=0)
ap.add_argument("--pause", type=float, default=0.0)
ap.add_argument("--mix", default="")
ap.add_argument("--shutdown", action="store_true")
ap.add_argument("--wait-ready", type=float, default=150.0)
ap.add_argument("--vocab", type=int, default=8192)
a = ap.parse_args()
T0 = time.time()


def say(msg):
    print(f"[client +{time.time() - T0:6.1f}s] {msg}", flush=True)


def conn():
    kind, _, addr = a.connect.partition(":")
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(120)
        s.connect(addr)
    else:
        host, port = addr.rsplit(":", 1)
        s = socket.create_connection((host, int(port)), timeout=120)
    return s


def send(payload, tag, hang_up=False):
    try:
        s = conn()
        s.sendall(payload if isinstance(payload, bytes) else (json.dumps(payload) + "\n").encode())
        if hang_up:
            s.close()
            say(f"{tag}: sent, hung up without reading")
            return
        f = s.makefile("rb")
        line = f.readline()
        s.close()
        say(f"{tag}: {line.decode(errors='replace').strip()[:160] or '<connection closed, no response>'}")
    except OSError as e:
        say(f"{tag}: {type(e).__name__}: {e}")


deadline = T0 + a.wait_ready
while True:
    try:
        conn().close()
        break
    except OSError as e:
        if time.time() > deadline:
            say(f"server never accepted a connection ({e}); giving up")
            sys.exit(1)
        time.sleep(0.5)
say(f"server accepts connections on {a.connect}")
rng = random.Random(7)


def normal(i):
    if i % 2:
        return {"prompt_token_ids": [rng.randrange(3, a.vocab) for _ in range(a.prompt_len)], "max_tokens": a.max_tokens,
                **({"prompt_logprobs": 1} if a.prompt_logprobs else {})}
    words = " ".join(rng.choice(["the", "GPU", "fleet", "serves", "tokens", "fast", "model", "node"]) for _ in range(a.prompt_len // 5))
    return {"prompt": words, "max_tokens": a.max_tokens, **({"prompt_logprobs": 1} if a.prompt_logprobs else {})}


for b in range(a.bursts if a.burst else 0):
    th = [threading.Thread(target=send, args=(normal(i), f"burst {b + 1}.{i + 1}/{a.burst}")) for i in range(a.burst)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    time.sleep(a.burst_gap)
for i in range(a.n):
    if a.pause_after and i == a.pause_after:
        say(f"(no traffic for {a.pause:.0f} s)")
        time.sleep(a.pause)
    tag = f"request {i + 1}/{a.n}"
    if a.mix == "bad" and i == 4:
        send(b'{"prompt": "summarise the incident report", "max_tokens": 8\n', tag + " (malformed JSON)")
    elif a.mix == "bad" and i == 8:
        send({"prompt_token_ids": [rng.randrange(3, a.vocab) for _ in range(3000)], "max_tokens": 8}, tag + " (3000-token prompt)")
    elif a.mix == "bad" and i == 13:
        send({**normal(i), "temperature": 0.7, "top_p": 0.9}, tag + " (sampling params)")
    elif a.mix == "bad" and i == 19:
        send({**normal(i), "max_tokens": 48}, tag + " (client hangs up)", hang_up=True)
    else:
        send(normal(i), tag)
    time.sleep(1.0 / a.rate)
if a.shutdown:
    time.sleep(1.0)
    send({"op": "shutdown"}, "admin shutdown")
say("done")
