#!/usr/bin/env python3
# publish_weights.py NEW_DIR SERVING_DIR [MB_PER_S]: the RL trainer's weight publisher. Streams the new policy's shard
# files (tp*/rank*.pt) over the ones in the inference server's model directory on the shared volume, writing each
# file in place at the volume's throughput (no temporary file + rename).
import glob, os, sys, time

src, dst = sys.argv[1], sys.argv[2]
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 4.0
chunk = 1 << 20
for f in sorted(glob.glob(os.path.join(src, "tp*", "rank*.pt"))):
    rel = os.path.relpath(f, src)
    t0 = time.time()
    with open(f, "rb") as fi, open(os.path.join(dst, rel), "wb") as fo:
        while True:
            b = fi.read(chunk)
            if not b:
                break
            fo.write(b)
            fo.flush()
            time.sleep(len(b) / (rate * chunk))
    print(f"{time.strftime('%H:%M:%S')} [publisher] wrote {rel} ({os.path.getsize(f) / 2**20:.1f} MiB in {time.time() - t0:.1f} s)", flush=True)
print(f"{time.strftime('%H:%M:%S')} [publisher] policy published to {dst}", flush=True)
