#!/usr/bin/env bash
# Suite: the QEMU NUMA lab (issue 4). DBHOST_LAB=0 skips it, visibly; so does a
# machine without QEMU, busybox-static or the kernel package (scripts/lab exits
# 77 with the reason, the protocol of scripts/lib/suite.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
# DBHOST_COVERDIR (set by ./scripts/test): the guests' dbhost is built with
# -cover and its counters join the unit tests' in that directory.
rc=0
scripts/lab ${DBHOST_COVERDIR:+-coverdir "$DBHOST_COVERDIR"} || rc=$?
[[ $rc -eq 0 ]] || exit $rc
# The same scenarios as Go subtests (go test -tags lab, docs/lab.md): one of
# them, so that this entry point is run, not only compiled by go vet.
echo "== go test -tags lab: TestLabScenarios/one-node"
go test -tags lab -count=1 -run 'TestLabScenarios/^one-node$' ./internal/lab/
