package artifacts

import "strings"

// SrvctlService is one service of `srvctl config service -d DB` output.
type SrvctlService struct {
	File        string   `json:"file"`
	Line        int      `json:"line"`
	Name        string   `json:"name"`
	Database    string   `json:"database,omitempty"` // when the output names it
	Preferred   []string `json:"preferred"`          // "Preferred instances:" (admin-managed)
	Available   []string `json:"available"`          // "Available instances:"
	ServerPool  string   `json:"server_pool,omitempty"`
	Cardinality string   `json:"cardinality,omitempty"` // SINGLETON | UNIFORM | a number (policy-managed)
	Enabled     *bool    `json:"enabled,omitempty"`     // "Service is enabled" / "Service is disabled"
	// Fields holds every "Key: value" line as written (keys as printed).
	Fields map[string]string `json:"fields"`
}

// ParseSrvctl parses `srvctl config service` output, one or many services
// (each starts at "Service name:"). Lines before the first service (a shell
// prompt, the command) are ignored; inside a service, a line that is neither
// "Key: value" nor "Service is ..." is an error.
func ParseSrvctl(b []byte) ([]*SrvctlService, []error) {
	var out []*SrvctlService
	var el errList
	var cur *SrvctlService
	for i, ln := range splitLines(b) {
		n := i + 1
		t := strings.TrimSpace(strings.TrimSuffix(ln, "\r"))
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "Service is ") {
			if cur != nil {
				rest := strings.TrimPrefix(t, "Service is ")
				switch {
				case strings.HasPrefix(rest, "enabled"):
					cur.Enabled = ptr(true)
				case strings.HasPrefix(rest, "disabled"):
					cur.Enabled = ptr(false)
				}
				cur.Fields[t] = ""
			}
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "Service name" {
			if v == "" {
				el.add(errAt(n, "expected a name after \"Service name:\""))
				cur = nil
				continue
			}
			cur = &SrvctlService{Line: n, Name: v, Preferred: []string{}, Available: []string{}, Fields: map[string]string{k: v}}
			out = append(out, cur)
			continue
		}
		if cur == nil {
			continue
		}
		if !ok || k == "" {
			el.add(errAt(n, "expected \"Key: value\" in service %s, got %q", cur.Name, trunc(t, 60)))
			continue
		}
		cur.Fields[k] = v
		switch strings.ToLower(k) {
		case "preferred instances":
			cur.Preferred = splitInstances(v)
		case "available instances":
			cur.Available = splitInstances(v)
		case "server pool":
			cur.ServerPool = v
		case "cardinality":
			cur.Cardinality = v
		case "database unique name", "database name", "database":
			cur.Database = v
		}
	}
	return out, el.list()
}

func splitInstances(v string) []string {
	out := []string{}
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		out = append(out, f)
	}
	return out
}
