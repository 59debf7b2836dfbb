#!/usr/bin/env bash
# examples/ansible/site.yml run by ansible-core (Debian's package) against
# localhost under two inventory names, connection local: the binary copied,
# a snapshot collected and fetched per host, the fleet audited; everything
# (snapshots, audit, Ansible's own temp files) under a temporary directory.
# Exit 0 passed, 77 skipped with the reason (scripts/lib/suite.sh), else failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/suite.sh
source scripts/lib/suite.sh
command -v ansible-playbook >/dev/null || suite_skip "ansible-playbook not installed (package ansible-core)"
work=$(mktemp -d /tmp/dbhost-ansible.XXXXXX)
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/dbhost" ./cmd/dbhost
cat >"$work/inventory.ini" <<INV
[db]
db-a ansible_connection=local
db-b ansible_connection=local

[all:vars]
ansible_python_interpreter=$(command -v python3)
INV
export ANSIBLE_LOCAL_TEMP="$work/ansible-local" ANSIBLE_REMOTE_TMP="$work/ansible-remote" \
	ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=0 ANSIBLE_CONFIG="$work/ansible.cfg" TMPDIR="$work"
: >"$work/ansible.cfg" # no ansible.cfg of the machine or the user
ansible-playbook -i "$work/inventory.ini" examples/ansible/site.yml \
	-e dbhost_binary="$work/dbhost" -e dbhost_out="$work/out" -e dbhost_workload=oltp >"$work/play.log" 2>&1 || {
	cat "$work/play.log"
	echo "FAIL: ansible-playbook"
	exit 1
}
grep -E '^(PLAY RECAP|localhost|db-)' "$work/play.log"
python3 - "$work" <<'PY'
import glob, json, os, sys
work = sys.argv[1]; out = os.path.join(work, "out")
errors = []
snaps = sorted(glob.glob(os.path.join(out, "snapshots", "*.json")))
if [os.path.basename(p) for p in snaps] != ["db-a.json", "db-b.json"]:
    errors.append(f"snapshots fetched: {snaps}")
for p in snaps:
    s = json.load(open(p))
    if s.get("source", {}).get("kind") != "live" or not s["topology"]["cpus_online"]:
        errors.append(f"{p}: not a live collect: {s.get('source')}")
doc = json.load(open(os.path.join(out, "audit.json")))
files = [h.get("file", "") for h in doc["hosts"]]
if [os.path.basename(f) for f in files] != ["db-a.json", "db-b.json"]:
    errors.append(f"audit.json hosts' files: {files}")
text = open(os.path.join(out, "audit.txt")).read()
if not text.startswith("Audit of 2 hosts"):
    errors.append("audit.txt: " + text[:200])
if max(len(l) for l in text.splitlines()) > 200:
    errors.append("audit.txt has a line wider than 200")
# The hosts keep nothing: the tempfile directories are gone.
left = glob.glob(os.path.join(work, "dbhost.*"))
if left:
    errors.append(f"left on the host: {left}")
if errors:
    print("FAIL:", "; ".join(errors)); sys.exit(1)
print(f"ok: 2 snapshots fetched, audit.json {len(doc['hosts'])} hosts with their files, audit.txt {len(text.splitlines())} lines")
PY
