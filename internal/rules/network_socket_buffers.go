package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// network.socket-buffers: 000's high-performance network configuration
// (Table 5/13) raises the socket buffer maxima to 16 MiB; 003's
// network-throughput profile does the same for tcp_rmem/tcp_wmem.
func init() {
	Register(Rule{
		ID:       "network.socket-buffers",
		Area:     AreaNetwork,
		Severity: SevInfo,
		Title:    "Socket buffer maxima below 16 MiB",
		Sources: []Source{
			{Doc: Seed000, Section: "net.core.rmem_max",
				Quote: "Defaults vary per OS version but we recommend 16MB."},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "net.ipv4.tcp_rmem\t4096 87380 16777216"},
			{Doc: Seed000, Section: "TCP_STREAM test results — Note",
				Quote: "On Linux, this will reduce the TCP_STREAM throughput results by 20-30%"},
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "tcp_rmem\tBytes\tauto-scaling\t\tMax=16777216"},
		},
		Scope: Scope{Kernels: "all", Distros: "all; the Oracle preinstall RPM sets rmem_max 4194304 and wmem_max 1048576, below this"},
		Check: checkSocketBuffers,
	})
}

const wantSockBuf = 16777216

func checkSocketBuffers(in *Input) Outcome {
	var fs []Finding
	var ok, cannot []string
	var wants []change.Change
	trap := " 000's note: an application that calls setsockopt() for 128K buffers (usual on other platforms) loses 20-30 % " +
		"TCP_STREAM throughput on Linux: an explicit SO_RCVBUF/SO_SNDBUF turns autotuning off and is capped by rmem_max/wmem_max, " +
		"so leave buffers to autotuning (tcp_rmem/tcp_wmem) or request 1-4 MB."
	why := "000: \"we recommend 16MB\"; the Table 5 high-performance configuration (with MTU 9000, bonding, rx-usecs 0) raised a single " +
		"TCP_STREAM from 7.98 to 9.89 Gb/s (+21 %) and UDP_RR (RAC cache-fusion-like) by 37-86 %."
	for _, key := range []string{"net.core.rmem_max", "net.core.wmem_max"} {
		v, r := in.SysctlInt(key)
		if r != "" {
			cannot = append(cannot, r)
			continue
		}
		wants = append(wants, in.SysctlChange("network.socket-buffers", key, fmt.Sprint(wantSockBuf), sockBufWhy))
		if v >= wantSockBuf {
			ok = append(ok, fmt.Sprintf("%s = %d", key, v))
			continue
		}
		fs = append(fs, Finding{
			Setting:     key,
			Current:     fmt.Sprintf("%d (%s)", v, KB(v/1024)),
			Recommended: fmt.Sprintf("%d (16 MiB)", wantSockBuf),
			Evidence:    in.SysctlEvidence(key, fmt.Sprint(v)),
			Why:         why + trap,
			Fix:         SysctlFix(key, fmt.Sprint(wantSockBuf)),
			Changes:     []change.Change{in.SysctlChange("network.socket-buffers", key, fmt.Sprint(wantSockBuf), sockBufWhy)},
			Risk:        "A maximum only: memory is used when sockets ask for it (tcp_mem still bounds the total).",
		})
	}
	defaults := map[string][2]int64{"net.ipv4.tcp_rmem": {4096, 87380}, "net.ipv4.tcp_wmem": {4096, 16384}}
	for _, key := range []string{"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"} {
		s, r := in.Sysctl(key)
		if r != "" {
			cannot = append(cannot, r)
			continue
		}
		t, err := parseIntTriple(s)
		if err != nil {
			cannot = append(cannot, fmt.Sprintf("sysctl.%s: %v", key, err))
			continue
		}
		// Keep the host's min and default (newer kernels use 131072 as tcp_rmem default).
		minv, def := t[0], t[1]
		if minv <= 0 || def <= 0 {
			minv, def = defaults[key][0], defaults[key][1]
		}
		want := fmt.Sprintf("%d %d %d", minv, def, wantSockBuf)
		wants = append(wants, in.SysctlChange("network.socket-buffers", key, want, sockBufWhy))
		if t[2] >= wantSockBuf {
			ok = append(ok, fmt.Sprintf("%s max %d", key, t[2]))
			continue
		}
		fs = append(fs, Finding{
			Setting:     key,
			Current:     s,
			Recommended: want,
			Evidence:    in.SysctlEvidence(key, s),
			Why:         why + " tcp_rmem/tcp_wmem's third value is the ceiling of autotuning for sockets that do not set their own size.",
			Fix:         SysctlFix(key, want),
			Changes:     []change.Change{in.SysctlChange("network.socket-buffers", key, want, sockBufWhy)},
			Risk:        "Per-connection memory can grow to 16 MiB on fast, long links; with thousands of connections watch tcp_mem pressure.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...).Wanting(wants...)
	}
	if len(cannot) > 0 && len(ok) == 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	return Passed("%s", strings.Join(append(ok, cannot...), "; ")).Wanting(wants...).Reading(strings.Join(ok, "; ") + " (/proc/sys/net)")
}

const sockBufWhy = "Socket buffer maxima below 16 MiB"
