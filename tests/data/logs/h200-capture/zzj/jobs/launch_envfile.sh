#!/bin/sh
# launch_envfile.sh FILE CMD...: start CMD with the variables of FILE, docker --env-file style (KEY=VALUE lines, verbatim)
f=$1; shift
echo "[launcher] $(hostname): env from $f: $(grep -v '^#' "$f" | tr '\n' ' ')"
exec env $(grep -v '^#' "$f") "$@"
