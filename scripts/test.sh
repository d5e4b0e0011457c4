#!/usr/bin/env bash
# The whole test suite, from a fresh machine (as root): installs what the tests need,
# runs the self-checks (ruff, mypy, yamllint, ansible-lint), builds the SSH test nodes,
# then runs pytest. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive
if ! command -v mmdebstrap >/dev/null || ! command -v sshd >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends mmdebstrap openssh-client openssh-server \
    iproute2 sudo procps util-linux >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test,nvml]'

echo "== ruff";         ruff check vfix tests benchmarks
echo "== mypy";         mypy
echo "== yamllint";     yamllint -s playbooks roles inventories molecule
echo "== ansible-lint"; ANSIBLE_CONFIG="$PWD/ansible.cfg" ansible-lint --offline -q playbooks roles

echo "== pytest"
set +e
python3 -m pytest "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$rc"
