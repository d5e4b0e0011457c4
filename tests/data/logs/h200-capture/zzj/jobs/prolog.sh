#!/bin/sh
# prolog.sh: node facts printed by the job prolog before the launcher starts
echo "[prolog] $(hostname): $(nproc) cpus, /dev/shm $(df -h /dev/shm | awk 'NR==2 {print $2 " size, " $4 " free"}'), /tmp $(df -h /tmp | awk 'NR==2 {print $4 " free"}')"
