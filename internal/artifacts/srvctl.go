package artifacts

// SrvctlService is one service of `srvctl config service -d DB` output.
type SrvctlService struct {
	File        string   `json:"file"`
	Line        int      `json:"line"`
	Name        string   `json:"name"`
	Database    string   `json:"database,omitempty"`
	Preferred   []string `json:"preferred,omitempty"`
	Available   []string `json:"available,omitempty"`
	ServerPool  string   `json:"server_pool,omitempty"`
	Cardinality string   `json:"cardinality,omitempty"`
	Enabled     *bool    `json:"enabled,omitempty"` // "Service is enabled" / "Service is disabled"
	// Fields holds every "Key: value" line as written (keys as printed).
	Fields map[string]string `json:"fields"`
}

// ParseSrvctl parses `srvctl config service` output (one or many services).
func ParseSrvctl(b []byte) ([]*SrvctlService, []error) {
	return nil, nil
}
