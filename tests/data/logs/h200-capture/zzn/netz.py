# netz.py (Z190: adds bridge/port for 3+ nodes on one L2 segment; Z185: per-side prefix length; Z181, from Z113's netz.py; adds veth0/addr6/show6): wire network namespaces held by sleeping processes, without the ip tool.
#   veth PID_A ADDR_A IF_A PID_B ADDR_B IF_B [PLEN]   IF_A in A <-> IF_B in B (default /24), lo up in both
#   route PID DST/PLEN GW                             a static route (DST 0.0.0.0/0 = default route)
#   down PID IFNAME                                   set a link down inside that namespace
#   show PID                                          print addresses and routes of that namespace (like ip -4 a; ip r)
#   bridge PID BR                                     (Z190) a bridge BR (no STP) inside PID's namespace (the "switch")
#   port PID_SW BR PID_N ADDR IFNAME [PLEN]          (Z190) veth IFNAME in PID_N (ADDR/PLEN) <-> a port of BR in PID_SW
import ctypes, fcntl, os, socket, struct, sys
def setns(pid):
    fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:
        raise OSError(ctypes.get_errno(), "setns")
    os.close(fd)
def sock():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
def up(name):
    fcntl.ioctl(sock(), 0x8914, struct.pack("16sH22x", name.encode(), 0x1 | 0x40))
def set_addr(name, addr, mask):
    s = sock()
    for req, a in ((0x8916, addr), (0x891C, mask)):
        fcntl.ioctl(s, req, struct.pack("16sH2s4s16x", name.encode(), socket.AF_INET, b"\0\0", socket.inet_aton(a)))
def plen2mask(p):
    return socket.inet_ntoa(struct.pack("!I", (0xFFFFFFFF << (32 - p)) & 0xFFFFFFFF))
def rta(t, data):
    ln = 4 + len(data)
    return struct.pack("HH", ln, t) + data + b"\0" * ((4 - ln % 4) % 4)
def nl(msgtype, flags, body, dump=False):
    msg = struct.pack("IHHII", 16 + len(body), msgtype, 0x1 | (0 if dump else 0x4) | flags, 1, 0) + body
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    s.bind((0, 0)); s.send(msg)
    out = []
    while True:
        r = s.recv(65536); off = 0; done = False
        while off < len(r):
            ln, typ = struct.unpack("IH", r[off:off + 6])
            if typ == 2:
                err = struct.unpack("i", r[off + 16:off + 20])[0]
                if err != 0:
                    raise OSError(-err, f"netlink {msgtype}: " + os.strerror(-err))
                done = True
            elif typ == 3:
                done = True
            else:
                out.append(r[off:off + ln])
            off += (ln + 3) & ~3
        if done or not dump:
            return out
def ifi(index=0):
    return struct.pack("BxHiII", 0, 0, index, 0, 0)
def make_veth(name, peer, peer_pid):
    peer_data = ifi() + rta(3, peer.encode() + b"\0") + rta(19, struct.pack("I", peer_pid))
    linkinfo = rta(1, b"veth\0") + rta(2, rta(1, peer_data))
    nl(16, 0x200 | 0x400, ifi() + rta(3, name.encode() + b"\0") + rta(18, linkinfo))
def add_route(dst, gw):
    d, p = dst.split("/"); p = int(p)
    body = struct.pack("BBBBBBBBI", socket.AF_INET, p, 0, 0, 254, 3, 0, 1, 0)
    if p:
        body += rta(1, socket.inet_aton(d))
    body += rta(5, socket.inet_aton(gw))
    nl(24, 0x200 | 0x400, body)
def attrs(b, off):
    a = {}
    while off + 4 <= len(b):
        ln, t = struct.unpack("HH", b[off:off + 4])
        if ln < 4: break
        a[t] = b[off + 4:off + ln]; off += (ln + 3) & ~3
    return a
def show():
    names = {i: n for i, n in socket.if_nameindex()}
    for m in nl(22, 0x300, struct.pack("BBBBI", socket.AF_INET, 0, 0, 0, 0), dump=True):
        fam, plen, fl, sc, idx = struct.unpack("BBBBI", m[16:24]); a = attrs(m, 24)
        print(f"    inet {socket.inet_ntoa(a.get(1, bytes(4)))}/{plen} dev {names.get(idx, idx)}")
    for m in nl(26, 0x300, struct.pack("BBBBBBBBI", socket.AF_INET, 0, 0, 0, 0, 0, 0, 0, 0), dump=True):
        fam, dl, sl, tos, table, proto, scope, typ, fl = struct.unpack("BBBBBBBBI", m[16:28]); a = attrs(m, 28)
        if table != 254: continue
        dst = socket.inet_ntoa(a[1]) + f"/{dl}" if 1 in a else "default"
        s = f"    {dst}"
        if 5 in a: s += f" via {socket.inet_ntoa(a[5])}"
        if 4 in a: s += f" dev {names.get(struct.unpack('i', a[4])[0], '?')}"
        if 7 in a: s += f" src {socket.inet_ntoa(a[7])}"
        print(s.replace("/32 ", " ") if False else s)

def add_addr6(name, addr, plen):
    idx = socket.if_nametoindex(name)
    body = struct.pack("BBBBI", socket.AF_INET6, plen, 0x02, 0, idx)   # IFA_F_NODAD
    a = socket.inet_pton(socket.AF_INET6, addr)
    body += rta(2, a) + rta(1, a) + rta(8, struct.pack("I", 0x02))     # IFA_LOCAL, IFA_ADDRESS, IFA_FLAGS
    nl(20, 0x200 | 0x400, body)
def make_bridge(name):
    linkinfo = rta(1, b"bridge\0")
    nl(16, 0x200 | 0x400, ifi() + rta(3, name.encode() + b"\0") + rta(18, linkinfo))
def set_master(name, master):
    idx, midx = socket.if_nametoindex(name), socket.if_nametoindex(master)
    nl(16, 0, ifi(idx) + rta(10, struct.pack("I", midx)))
cmd = sys.argv[1]
if cmd == "veth":
    pa, aa, ia, pb, ab, ib = sys.argv[2:8]
    plen = int(sys.argv[8]) if len(sys.argv) > 8 else 24
    pla = plb = plen   # Z185: ADDR may carry its own prefix length (10.98.0.2/32)
    if "/" in aa: aa, pla = aa.split("/")[0], int(aa.split("/")[1])
    if "/" in ab: ab, plb = ab.split("/")[0], int(ab.split("/")[1])
    setns(int(pa)); make_veth(ia, ib, int(pb))
    setns(int(pa)); up("lo"); set_addr(ia, aa, plen2mask(pla)); up(ia)
    setns(int(pb)); up("lo"); set_addr(ib, ab, plen2mask(plb)); up(ib)
    print(f"veth: {pa}:{ia} {aa}/{pla} <-> {pb}:{ib} {ab}/{plb}")
elif cmd == "route":
    _, _, pid, dst, gw = sys.argv
    setns(int(pid)); add_route(dst, gw)
    print(f"route: {pid}: {dst} via {gw}")
elif cmd == "down":
    _, _, pid, name = sys.argv
    setns(int(pid)); fcntl.ioctl(sock(), 0x8914, struct.pack("16sH22x", name.encode(), 0))
    print(f"down: {pid}:{name}")
elif cmd == "veth0":
    pa, ia, pb, ib = sys.argv[2:6]
    setns(int(pa)); make_veth(ia, ib, int(pb))
    setns(int(pa)); up("lo"); up(ia)
    setns(int(pb)); up("lo"); up(ib)
    print(f"veth (no IPv4): {pa}:{ia} <-> {pb}:{ib}")
elif cmd == "addr6":
    _, _, pid, name, addr, plen = sys.argv
    setns(int(pid)); add_addr6(name, addr, int(plen))
    print(f"addr6: {pid}:{name} {addr}/{plen}")
elif cmd == "show6":
    setns(int(sys.argv[2]))
    for l in open("/proc/net/if_inet6"):
        h, idx, pl, sc, fl, dev = l.split()
        print(f"    inet6 {socket.inet_ntop(socket.AF_INET6, bytes.fromhex(h))}/{int(pl, 16)} dev {dev}")
elif cmd == "bridge":
    _, _, pid, br = sys.argv
    setns(int(pid)); make_bridge(br); up("lo"); up(br)
    print(f"bridge: {pid}:{br}")
elif cmd == "port":
    psw, br, pn, addr, ifn = sys.argv[2:7]
    plen = int(sys.argv[7]) if len(sys.argv) > 7 else 24
    swp = f"p{pn}"[:15]
    setns(int(pn)); make_veth(ifn, swp, int(psw))
    setns(int(pn)); up("lo"); set_addr(ifn, addr, plen2mask(plen)); up(ifn)
    setns(int(psw)); set_master(swp, br); up(swp)
    print(f"port: {pn}:{ifn} {addr}/{plen} <-> {psw}:{br}/{swp}")
elif cmd == "show":
    setns(int(sys.argv[2])); show()
else:
    sys.exit("usage: netz.py veth|route|down|show ...")
