# netq.py (Z100; Z153 added `mtu`; from Z87's netns.py / Z90's netz.py): wire network namespaces held by sleeping processes, without ip.
#   veth PID_A ADDR_A IF_A PID_B ADDR_B IF_B [STALE_B]
#        IF_A in A <-> IF_B in B, /24, lo up in both; STALE_B: an older address put on IF_B first (a second /24)
#   down PID IFNAME   set a link down inside that namespace (cable pulled / switch port off)
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
def set_addr(name, addr, mask="255.255.255.0"):
    s = sock()
    for req, a in ((0x8916, addr), (0x891C, mask)):
        fcntl.ioctl(s, req, struct.pack("16sH2s4s16x", name.encode(), socket.AF_INET, b"\0\0", socket.inet_aton(a)))
def rta(t, data):
    ln = 4 + len(data)
    return struct.pack("HH", ln, t) + data + b"\0" * ((4 - ln % 4) % 4)
def nl(msgtype, flags, body):
    msg = struct.pack("IHHII", 16 + len(body), msgtype, 0x1 | 0x4 | flags, 1, 0) + body
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    s.bind((0, 0)); s.send(msg); r = s.recv(4096)
    if struct.unpack("H", r[4:6])[0] == 2:
        err = struct.unpack("i", r[16:20])[0]
        if err != 0:
            raise OSError(-err, f"netlink {msgtype}: " + os.strerror(-err))
def ifi(index=0):
    return struct.pack("BxHiII", 0, 0, index, 0, 0)
def make_veth(name, peer, peer_pid):
    peer_data = ifi() + rta(3, peer.encode() + b"\0") + rta(19, struct.pack("I", peer_pid))
    linkinfo = rta(1, b"veth\0") + rta(2, rta(1, peer_data))
    nl(16, 0x200 | 0x400, ifi() + rta(3, name.encode() + b"\0") + rta(18, linkinfo))
def add_addr(name, addr, plen=24):   # RTM_NEWADDR: a further IPv4 address on the interface
    a = socket.inet_aton(addr)
    body = struct.pack("BBBBI", socket.AF_INET, plen, 0, 0, socket.if_nametoindex(name)) + rta(2, a) + rta(1, a)
    nl(20, 0x200 | 0x400, body)
cmd = sys.argv[1]
if cmd == "veth":
    pa, aa, ia, pb, ab, ib = sys.argv[2:8]
    stale = sys.argv[8] if len(sys.argv) > 8 else ""
    setns(int(pa)); make_veth(ia, ib, int(pb))
    setns(int(pa)); up("lo"); set_addr(ia, aa); up(ia)
    setns(int(pb)); up("lo")
    if stale:
        set_addr(ib, stale); add_addr(ib, ab)
    else:
        set_addr(ib, ab)
    up(ib)
    print(f"veth: {pa}:{ia} {aa} <-> {pb}:{ib} {(stale + ' (first), ') if stale else ''}{ab}")
elif cmd == "mtu":   # mtu PID IFNAME MTU (Z153): SIOCSIFMTU inside that namespace
    _, _, pid, name, mtu = sys.argv
    setns(int(pid)); fcntl.ioctl(sock(), 0x8922, struct.pack("16si20x", name.encode(), int(mtu)))
    print(f"mtu: {pid}:{name} {mtu}")
elif cmd == "showmtu":   # showmtu PID IFNAME (Z153): SIOCGIFMTU inside that namespace
    _, _, pid, name = sys.argv
    setns(int(pid)); r = fcntl.ioctl(sock(), 0x8921, struct.pack("16si20x", name.encode(), 0))
    print(f"{name} mtu {struct.unpack('16si20x', r)[1]}")
elif cmd == "down":
    _, _, pid, name = sys.argv
    setns(int(pid)); fcntl.ioctl(sock(), 0x8914, struct.pack("16sH22x", name.encode(), 0))
    print(f"down: {pid}:{name}")
else:
    sys.exit("usage: netq.py veth|down ...")
