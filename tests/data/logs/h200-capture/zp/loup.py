# bring lo up in the current network namespace, then exec the command (a container with --network none)
import fcntl, os, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", b"lo", 0x1 | 0x40))
os.execvp(sys.argv[1], sys.argv[1:])
