# devdeny.py CGROUP_DIR MAJOR[,MAJOR...]: attach a cgroup-v2 device program that denies every open/mknod of
# character/block devices with those majors to the processes of CGROUP_DIR (what a runtime's rewritten device
# rules do to a running container); all other devices stay allowed. Lives until the cgroup is removed.
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR_BPF = 321  # x86_64
def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, 144)
    r = libc.syscall(ctypes.c_long(NR_BPF), ctypes.c_long(cmd), buf, ctypes.c_long(144))
    if r < 0:
        e = ctypes.get_errno(); raise OSError(e, f"bpf cmd {cmd}: {os.strerror(e)}")
    return r
def insn(code, dst=0, src=0, off=0, imm=0):
    return struct.pack("<BBhi", code, (src << 4) | dst, off, imm)
cg, majors = sys.argv[1], [int(m) for m in sys.argv[2].split(",")]
prog = insn(0x61, dst=2, src=1, off=4)                      # r2 = ctx->major
n = len(majors)
for i, m in enumerate(majors):                              # if r2 == m goto deny
    prog += insn(0x15, dst=2, off=(n - 1 - i) + 2, imm=m)
prog += insn(0xb7, dst=0, imm=1) + insn(0x95)               # allow: r0 = 1; exit
prog += insn(0xb7, dst=0, imm=0) + insn(0x95)               # deny:  r0 = 0; exit
insns = ctypes.create_string_buffer(prog, len(prog))
lic = ctypes.create_string_buffer(b"GPL")
logbuf = ctypes.create_string_buffer(65536)
attr = struct.pack("<IIQQIIQII16s", 15, len(prog) // 8, ctypes.addressof(insns), ctypes.addressof(lic),
                   1, len(logbuf), ctypes.addressof(logbuf), 0, 0, b"devdeny")
try:
    pfd = bpf(5, attr)                                      # BPF_PROG_LOAD, BPF_PROG_TYPE_CGROUP_DEVICE
except OSError:
    print(logbuf.value.decode(errors="replace")); raise
cfd = os.open(cg, os.O_RDONLY | os.O_DIRECTORY)
for flags in (2, 0):                                        # BPF_F_ALLOW_MULTI, then none
    try:
        bpf(8, struct.pack("<IIIII", cfd, pfd, 6, flags, 0))  # BPF_PROG_ATTACH, BPF_CGROUP_DEVICE
        print(f"devdeny: majors {majors} denied in {cg} (attach flags {flags})", flush=True)
        break
    except OSError as e:
        print(f"devdeny: attach flags {flags}: {e}", flush=True)
else:
    sys.exit(1)
