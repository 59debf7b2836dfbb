package report

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// CoreTypesText says which CPUs are performance and which efficiency cores
// (snapshot topology.core_types) in one line, with the files that tell;
// "" for a snapshot without core types.
func CoreTypesText(ct *snapshot.CoreTypes) string {
	if ct == nil {
		return ""
	}
	switch ct.Kind {
	case snapshot.CoreKindHybrid:
		var parts []string
		for _, ty := range ct.Types {
			parts = append(parts, fmt.Sprintf("%s (%s) CPUs %s", ty.Class, ty.Name, cpulist.Format(ty.CPUs)))
		}
		s := "Core types: hybrid: " + strings.Join(parts, "; ")
		if len(ct.Unlisted) > 0 {
			s += "; CPUs " + cpulist.Format(ct.Unlisted) + " of no known type"
		}
		if ct.Contradiction != "" {
			s += "; ! " + ct.Contradiction
		}
		return s + " (from " + typeSources(ct) + ")"
	case snapshot.CoreKindUniform:
		return "Core types: one core type (" + ct.Evidence + ")"
	}
	return "Core types: unknown (" + ct.Evidence + ")"
}

func typeSources(ct *snapshot.CoreTypes) string {
	var out []string
	for _, ty := range ct.Types {
		if len(out) == 0 || out[len(out)-1] != ty.Source {
			out = append(out, ty.Source)
		}
	}
	return strings.Join(out, ", ")
}
