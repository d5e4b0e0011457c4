#!/usr/bin/env bash
# Run a command (typically molecule) against fresh real SSH test nodes, then stop them.
#
#   molecule/shared/with-test-nodes.sh [COUNT] [--netns] -- molecule test -s shm
#
# Exports VFIX_MOLECULE_INVENTORY (the nodes' inventory: user `ansible` with become) and
# ANSIBLE_CONFIG; scenarios read the inventory with
#   ansible.executor.args.ansible_playbook: ["--inventory=${VFIX_MOLECULE_INVENTORY}"]
# Needs root (namespaces, mounts). The nodes are described in tests/harness/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

count=2
netns=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --netns) netns=(--netns) ;;
    *) count="$1" ;;
  esac
  shift
done
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 [COUNT] [--netns] -- COMMAND..." >&2; exit 2; }

name="molecule-$$"
inventory=$(python3 -m tests.harness up "$count" "${netns[@]}" --user ansible --name "$name")
trap 'python3 -m tests.harness down --name "$name"' EXIT
trap 'exit 143' INT TERM  # still runs the EXIT trap: the nodes never outlive the command
export VFIX_MOLECULE_INVENTORY="$inventory"
export ANSIBLE_CONFIG="$PWD/ansible.cfg"
"$@"
