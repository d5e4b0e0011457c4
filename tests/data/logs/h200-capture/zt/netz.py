# netz.py (Z87's netns.py plus the bridge option): wire network namespaces (held by sleeping processes) without the ip tool.
#   veth PID_A ADDR_A PID_B ADDR_B            eth1 in A <-> eth1 in B, /24, lo up in both
#   switch PID_S PID_A ADDR_A PID_B ADDR_B HOST_MTU PORT_B_MTU
#        a Linux bridge br0 in S (the "switch"), port swa to A's eth1, port swb to B's eth1; both hosts' eth1 and
#        swa get HOST_MTU, swb gets PORT_B_MTU; segmentation offloads off on the hosts' eth1 (like a NIC without TSO)
import ctypes, fcntl, os, socket, struct, sys
def setns(pid):
    fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:
        raise OSError(ctypes.get_errno(), "setns")
    os.close(fd)
def sock():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
def up(name):
    fcntl.ioctl(sock(), 0x8914, struct.pack("16sH22x", name.encode(), 0x1 | 0x40))   # SIOCSIFFLAGS UP|RUNNING
def set_addr(name, addr, mask="255.255.255.0"):
    s = sock()
    for req, a in ((0x8916, addr), (0x891C, mask)):
        fcntl.ioctl(s, req, struct.pack("16sH2s4s16x", name.encode(), socket.AF_INET, b"\0\0", socket.inet_aton(a)))
def set_mtu(name, mtu):
    fcntl.ioctl(sock(), 0x8922, struct.pack("16si20x", name.encode(), mtu))              # SIOCSIFMTU
def offloads_off(name):
    for cmd in (0x1f, 0x24, 0x2c):                                                       # ETHTOOL_STSO, _SGSO, _SGRO
        ev = ctypes.create_string_buffer(struct.pack("II", cmd, 0), 8)
        try:
            fcntl.ioctl(sock(), 0x8946, struct.pack("16sP16x", name.encode(), ctypes.addressof(ev)))
        except OSError as e:
            print(f"  ethtool {name} cmd {cmd:#x}: {e}")
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
    nl(16, 0x200 | 0x400, ifi() + rta(3, name.encode() + b"\0") + rta(18, linkinfo))   # RTM_NEWLINK
def make_bridge(name):
    nl(16, 0x200 | 0x400, ifi() + rta(3, name.encode() + b"\0") + rta(18, rta(1, b"bridge\0")))
def set_master(name, master):
    nl(19, 0, ifi(socket.if_nametoindex(name)) + rta(10, struct.pack("I", socket.if_nametoindex(master))))  # RTM_SETLINK
def host(pid, addr, mtu=None, no_offload=False):
    setns(pid); up("lo"); set_addr("eth1", addr)
    if mtu: set_mtu("eth1", mtu)
    if no_offload: offloads_off("eth1")
    up("eth1")
cmd = sys.argv[1]
if cmd == "veth":   # veth PID_A ADDR_A PID_B ADDR_B [bridge]
    pa, aa, pb, ab = sys.argv[2:6]
    if sys.argv[6:] == ["bridge"]:
        # each host first gets a docker-compose style bridge (a veth pair standing in for it), 172.18.0.1/16
        for pid in (int(pa), int(pb)):
            setns(pid); make_veth("br-7e2f0c91ab34", "vethc81d2f0", pid)
            set_addr("br-7e2f0c91ab34", "172.18.0.1", "255.255.0.0"); up("br-7e2f0c91ab34"); up("vethc81d2f0")
        print("bridges: br-7e2f0c91ab34 172.18.0.1/16 on both hosts")
    setns(int(pa)); make_veth("eth1", "eth1", int(pb))
    host(int(pa), aa); host(int(pb), ab)
    print(f"veth: {pa}:eth1 {aa} <-> {pb}:eth1 {ab}")
elif cmd == "switch":
    _, _, ps, pa, aa, pb, ab, hmtu, bmtu = sys.argv
    setns(int(ps)); up("lo")
    make_bridge("br0"); make_veth("swa", "eth1", int(pa)); make_veth("swb", "eth1", int(pb))
    set_master("swa", "br0"); set_master("swb", "br0")
    set_mtu("swa", int(hmtu)); set_mtu("swb", int(bmtu))
    for n in ("swa", "swb", "br0"): up(n)
    host(int(pa), aa, int(hmtu), True); host(int(pb), ab, int(hmtu), True)
    print(f"switch: {pa}:eth1 {aa} mtu {hmtu} -- [swa mtu {hmtu} | br0 | swb mtu {bmtu}] -- {pb}:eth1 {ab} mtu {hmtu}")
elif cmd == "down":   # down PID IFNAME : the link goes down inside that namespace (cable pulled / switch port off)
    _, _, pid, name = sys.argv
    setns(int(pid)); fcntl.ioctl(sock(), 0x8914, struct.pack("16sH22x", name.encode(), 0))
    print(f"down: {pid}:{name}")
else:
    sys.exit("usage: netns.py veth|switch ...")
