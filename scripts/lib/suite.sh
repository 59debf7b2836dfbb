# shellcheck shell=bash
# The suite protocol, for scripts/suites/*.sh (and scripts/lab). Source this
# file. A suite's exit status says what happened:
#
#   0    passed
#   77   skipped: the suite could not run here; its last line starting with
#        "SKIP: " says why and names the missing package or prerequisite
#   else failed
#
# ./scripts/test counts the three apart, prints every skip's reason, and with
# CI=true treats a skip as a failure (CI must run every suite).

SUITE_SKIP=77

# suite_skip REASON...: say why and stop with the skip status.
suite_skip() {
	echo "SKIP: $*"
	exit "$SUITE_SKIP"
}
