#!/usr/bin/env bash
# The whole test suite, from a fresh machine (as root): installs what the tests need,
# runs the self-checks (ruff, mypy, yamllint, ansible-lint), builds the SSH test nodes'
# rootfs (cached in /var/cache/vfix-test-nodes), then runs pytest. `.ci/run` calls exactly this.
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -m "not slow"`).
set -euo pipefail
cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" -eq 0 ]; then
  # Test nodes need: mmdebstrap (rootfs), ssh/ssh-keygen, ip (netns, bridge), unshare/nsenter.
  missing=0
  for tool in mmdebstrap ssh ssh-keygen ip unshare nsenter; do
    command -v "$tool" >/dev/null || missing=1
  done
  if [ "$missing" -eq 1 ]; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends mmdebstrap openssh-client iproute2 \
      util-linux procps >/dev/null
  fi
else
  echo "not root: tests that need the SSH test nodes will be skipped" >&2
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test,nvml]'

echo "== ruff";         ruff check vfix tests benchmarks scripts
echo "== mypy";         mypy
echo "== yamllint";     yamllint -s playbooks roles inventories molecule
echo "== ansible-lint"; ANSIBLE_CONFIG="$PWD/ansible.cfg" ansible-lint --offline -q playbooks roles

if [ "$(id -u)" -eq 0 ]; then
  echo "== test nodes";  python3 -m tests.harness build
fi

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
