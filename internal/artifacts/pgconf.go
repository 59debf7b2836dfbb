package artifacts

// PGConf is one postgresql.conf with the files it includes that exist beside it.
type PGConf struct {
	File string `json:"file"`
	// Entries are the settings in the order PostgreSQL reads them (included
	// files expanded in place); a later entry overrides an earlier one.
	Entries  []PGParam   `json:"entries"`
	Includes []PGInclude `json:"includes,omitempty"`
}

// PGParam is one "name = value" setting. Name is lower-cased; Value unquoted.
type PGParam struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PGInclude is one include / include_if_exists / include_dir directive.
type PGInclude struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Directive string `json:"directive"`
	Path      string `json:"path"`
	Followed  bool   `json:"followed"`
	Reason    string `json:"reason,omitempty"` // why it was not followed
}

// ParsePGConf parses postgresql.conf syntax (includes are recorded, not followed).
func ParsePGConf(b []byte) (*PGConf, []error) {
	return &PGConf{}, nil
}

func loadPGConf(path string, b []byte) (*PGConf, []error) {
	c, errs := ParsePGConf(b)
	c.File = path
	return c, errs
}
