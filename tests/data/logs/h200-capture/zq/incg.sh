#!/bin/sh
# incg.sh CGROUP_DIR CMD...: move this shell into a cgroup-v2 group (the "container"), then run CMD
echo $$ > "$1/cgroup.procs" || exit 97
shift
exec "$@"
