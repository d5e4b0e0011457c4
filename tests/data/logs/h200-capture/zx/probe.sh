# probe.sh: sourced by run_zx.sh (or run alone): unpack the carried iptables, test nft then legacy backend
# in two scratch namespaces (a rejected port must give errno 113); sets FW_OK=1 when a firewall works here.
PD=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
echo "kernel $(uname -r); hostname $(hostname); /proc/net/netfilter: $(ls /proc/net/netfilter 2>&1 | tr '\n' ' ')"
mkdir -p /opt/fw/bin /tmp/fwprobe && tar -C /opt/fw -xzf $PD/fw.tgz
FW_OK=0
for be in nft legacy; do
  printf '#!/bin/sh\nL=/opt/fw/usr/lib/x86_64-linux-gnu\nexec env LD_LIBRARY_PATH=$L XTABLES_LIBDIR=$L/xtables /opt/fw/usr/sbin/xtables-%s-multi iptables "$@"\n' $be > /opt/fw/bin/iptables
  chmod +x /opt/fw/bin/iptables
  unshare -n sleep 30 > /dev/null 2>&1 & PA=$!
  unshare -n sleep 30 > /dev/null 2>&1 & PB=$!
  sleep 0.3
  python3 $PD/netz.py veth $PA 10.99.9.1 eth1 $PB 10.99.9.2 eth1 > /dev/null
  if nsenter -n -t $PA sh -c '/opt/fw/bin/iptables -A INPUT -i lo -j ACCEPT && /opt/fw/bin/iptables -A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT && /opt/fw/bin/iptables -A INPUT -p tcp -m multiport --dports 22,8000 -j ACCEPT && /opt/fw/bin/iptables -A INPUT -j REJECT --reject-with icmp-host-prohibited' > /tmp/fwprobe/$be 2>&1; then
    nsenter -n -t $PA timeout 6 python3 -c "import socket, time; s = socket.socket(); s.bind(('0.0.0.0', 29999)); s.listen(); time.sleep(5)" &
    sleep 0.5
    R=$(nsenter -n -t $PB python3 -c "
import socket
s = socket.socket(); s.settimeout(5)
try:
    s.connect(('10.99.9.1', 29999)); print('connected')
except OSError as e:
    print('errno', e.errno)")
    echo "iptables-$be: rules set; connect to a rejected port -> $R"
    [ "$R" = "errno 113" ] && FW_OK=1
  else
    echo "iptables-$be failed: $(tr '\n' ' ' < /tmp/fwprobe/$be | cut -c1-300)"
  fi
  kill -9 $PA $PB 2>/dev/null; wait $PA $PB 2>/dev/null
  [ $FW_OK = 1 ] && break
done
echo "FW_OK=$FW_OK ($(/opt/fw/bin/iptables --version 2>&1))"
