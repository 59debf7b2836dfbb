#!/usr/bin/env bash
# Suite: the QEMU NUMA lab (issue 4). DBHOST_LAB=0 skips it, visibly.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ "${DBHOST_LAB:-1}" == "0" ]]; then
	echo "NUMA lab skipped (DBHOST_LAB=0)"
	exit 0
fi
exec scripts/lab
