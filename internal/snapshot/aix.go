package snapshot

// The aix section: what an AIX bundle (scripts/dbhost-collect-aix.sh, or
// dbhost --aix-bundle DIR_OR_TAR) holds, one field per command output. It
// is nil on Linux. Every field names the command it comes from; the bundle
// file is commands/NAME, NAME being the command line with each space
// replaced by "_" (lsattr -El hdisk3 → commands/lsattr_-El_hdisk3).
//
// Absent is not zero here either: a command that was missing on the host,
// failed, or printed nothing dbhost could read leaves its field nil (or its
// list nil, never an empty list) and one Absence under the field's dotted
// name ("aix.srads", path "commands/lssrad_-av") with the reason, the exit
// code included ("not present on this host: lssrad: command not found
// (exit 127)"). A list read and found empty is [] (no page pools, no
// processes of a database).
//
// Numbers are numbers: hexadecimal attribute values (0x100000) are converted,
// units are in the field names (_kb, _mb, _ms, _pct, _gbit) as everywhere in
// the Snapshot; a value is also kept as printed where the command prints
// text (AIXValue).

// AIX is the aix section of a Snapshot.
type AIX struct {
	// Bundle describes the bundle itself: its meta file and every command.
	Bundle AIXBundle `json:"bundle"`
	// OSLevel is `oslevel -s`: "7200-05-03-2148" (version, technology level,
	// service pack, build week).
	OSLevel *string `json:"oslevel"`
	// Prtconf is the summary at the top of `prtconf`.
	Prtconf *AIXPrtconf `json:"prtconf"`
	// LPAR is `lparstat -i`.
	LPAR *AIXLPAR `json:"lpar"`
	// SMT is `smtctl` (no arguments: the report).
	SMT *AIXSMT `json:"smt"`
	// SRADs are `lssrad -av`: the scheduler resource allocation domains (AIX's
	// NUMA nodes), sorted by SRAD number.
	SRADs []AIXSRAD `json:"srads"`
	// Disks are `lsdev -Cc disk`, each with `lsattr -El hdiskN`, its `lspath`
	// paths and its `iostat -D` statistics; sorted by name (hdisk2 before
	// hdisk10).
	Disks []AIXDisk `json:"disks"`
	// Adapters are `lsdev -Cc adapter`, sorted by name.
	Adapters []AIXDevice `json:"adapters"`
	// FCAdapters are the Fibre Channel adapters (fcsN of `lsdev -Cc adapter`),
	// each with `lsattr -El fcsN` and `fcstat -e fcsN`; sorted by name.
	FCAdapters []AIXFCAdapter `json:"fc_adapters"`
	// Tunables are `ioo -a`, `vmo -a`, `no -a` and `schedo -a`.
	Tunables AIXTunables `json:"tunables"`
	// Sys0 is `lsattr -El sys0` (maxuproc, minpout, maxpout, iostat, ncargs,
	// ...), keyed by attribute name.
	Sys0 map[string]AIXAttr `json:"sys0"`
	// AIO0 is `lsattr -El aio0` (maxservers, minservers, maxreqs, kprocprio,
	// autoconfig, fastpath): AIX 5.3 and earlier. From AIX 6.1 there is no aio0
	// device and the same settings are ioo tunables (aio_maxservers,
	// aio_maxreqs, ...): AIO0 is then nil with that reason.
	AIO0 map[string]AIXAttr `json:"aio0"`
	// Mounts are `mount` (the mounted file systems), in its order.
	Mounts []AIXMount `json:"mounts"`
	// Filesystems are `lsfs -q` (every file system in /etc/filesystems, with
	// its JFS/JFS2 superblock values), in its order.
	Filesystems []AIXFilesystem `json:"filesystems"`
	// PagingSpaces are `lsps -a`, in its order.
	PagingSpaces []AIXPagingSpace `json:"paging_spaces"`
	// Memory is the memory and paging-space summary of `svmon -G`.
	Memory *AIXSvmonMemory `json:"memory"`
	// PagePools are the page size pools of `svmon -G` (4 KB, 64 KB, 16 MB,
	// 16 GB), sorted by size.
	PagePools []AIXPagePool `json:"page_pools"`
	// VmstatV is `vmstat -v`, keyed by the exact label AIX prints ("pending
	// disk I/Os blocked with no pbuf", "filesystem I/Os blocked with no
	// fsbuf", "minperm percentage", "memory pages"); percentages and counts
	// as numbers.
	VmstatV map[string]float64 `json:"vmstat_v"`
	// Users are `lsuser -a capabilities oracle`.
	Users []AIXUser `json:"users"`
	// Rsets are `lsrset -av`: the resource sets, sorted by name.
	Rsets []AIXRset `json:"rsets"`
	// Processes are the database processes of `ps -ef` (Oracle, Grid/ASM,
	// the listener, PostgreSQL, MySQL/MariaDB), sorted by PID; [] when there
	// is none.
	Processes []AIXProcess `json:"processes"`
	// ProcessCount is the number of processes `ps -ef` listed, database or not.
	ProcessCount *int `json:"process_count"`
	// DSCR is `dscrctl -q`: the hardware data stream prefetch settings
	// (POWER7 and later, AIX 6.1 TL6 and later).
	DSCR *AIXDSCR `json:"dscr"`
	// PowerHA is `lssrc -ls clstrmgrES`: whether the node runs PowerHA
	// SystemMirror (HACMP), and its cluster manager's state.
	PowerHA *AIXPowerHA `json:"powerha"`
	// TZ is the system time zone: the TZ line of /etc/environment, as the
	// collector recorded it in meta (tz:). Olson names ("Europe/Paris") are
	// slower than POSIX ones ("CET-1CEST,M3.5.0,M10.5.0/3") on AIX 6.1.
	TZ *string `json:"tz"`
}

// AIXBundle describes where the aix section came from.
type AIXBundle struct {
	// Format is meta's "format:" line ("dbhost-aix-bundle 1").
	Format string `json:"format"`
	// Collector is meta's "collector:" line (the script or dbhost, and its version).
	Collector string `json:"collector"`
	// Hostname is meta's "hostname:" line (`hostname` on the host).
	Hostname string `json:"hostname"`
	// Date is meta's "date:" line as the host printed it (UTC, RFC 3339).
	Date string `json:"date"`
	// User is meta's "user:" line: who ran the collector (root sees more).
	User string `json:"user,omitempty"`
	// Commands is every command the collector ran or looked for (meta's
	// "ran:", "missing:" and "failed:" lines), sorted by file.
	Commands []AIXCommand `json:"commands"`
}

// AIXCommand is one command of the bundle.
type AIXCommand struct {
	// Command is the command line as run ("lsattr -El hdisk3").
	Command string `json:"command"`
	// File is its output below the bundle ("commands/lsattr_-El_hdisk3");
	// empty when nothing was written.
	File string `json:"file,omitempty"`
	// Status is "ok", "missing" (the command does not exist on the host) or
	// "failed" (it ran and exited non-zero; its output is kept and read
	// for what it holds).
	Status string `json:"status"`
	// ExitCode is the command's exit status (127 for a missing command).
	ExitCode int `json:"exit_code"`
}

// AIXValue is one value as an AIX command prints it, and its kind: a tunable
// of ioo/vmo/no/schedo.
type AIXValue struct {
	// Value is the text as printed ("0x100000", "16777216", "n/a", "yes").
	Value string `json:"value"`
	// Kind is "number" (decimal or hexadecimal, Number holds it), "n/a"
	// (the tunable does not apply on this host: ioo/vmo print n/a) or "text".
	Kind string `json:"kind"`
	// Number is the value when Kind is "number" (0x100000 → 1048576).
	Number *int64 `json:"number,omitempty"`
}

// AIXAttr is one attribute of `lsattr -El DEVICE`: attribute, value,
// description, user-settable.
type AIXAttr struct {
	// Value is the text as printed ("0x100000", "no_reserve", "shortest_queue").
	Value string `json:"value"`
	// Kind is "number" or "text" (as AIXValue.Kind).
	Kind string `json:"kind"`
	// Number is the value when Kind is "number" (hexadecimal converted).
	Number *int64 `json:"number,omitempty"`
	// Description is lsattr's description column.
	Description string `json:"description,omitempty"`
	// Settable is lsattr's last column (True: the user may change it).
	Settable *bool `json:"settable,omitempty"`
}

// AIXPrtconf is the summary at the top of `prtconf`.
type AIXPrtconf struct {
	SystemModel        string `json:"system_model,omitempty"`        // System Model: IBM,9119-MME
	ProcessorType      string `json:"processor_type,omitempty"`      // Processor Type: PowerPC_POWER8
	ImplementationMode string `json:"implementation_mode,omitempty"` // Processor Implementation Mode: POWER 8
	ProcessorVersion   string `json:"processor_version,omitempty"`   // Processor Version: PV_8_Compat
	Processors         *int   `json:"processors"`                    // Number Of Processors (virtual processors of the LPAR)
	ClockMHz           *int64 `json:"clock_mhz"`                     // Processor Clock Speed: 3526 MHz
	KernelType         string `json:"kernel_type,omitempty"`         // Kernel Type: 64-bit
	MemoryMB           *int64 `json:"memory_mb"`                     // Memory Size: 65536 MB
	GoodMemoryMB       *int64 `json:"good_memory_mb"`                // Good Memory Size: 65536 MB
	Firmware           string `json:"firmware,omitempty"`            // Platform Firmware level: SC860_215
	// Fields is every "Label: value" line of the summary, as printed.
	Fields map[string]string `json:"fields"`
}

// AIXLPAR is `lparstat -i`.
type AIXLPAR struct {
	// Name is "Partition Name"; NodeName "Node Name" (the host name).
	Name     string `json:"name"`
	NodeName string `json:"node_name,omitempty"`
	// Number is "Partition Number".
	Number *int `json:"number"`
	// Type is "Type" as printed: "Shared-SMT-4", "Dedicated-SMT-8",
	// "Dedicated", "Shared".
	Type string `json:"type"`
	// Shared is true for a shared-processor LPAR (Type starts with "Shared").
	Shared *bool `json:"shared"`
	// Mode is "Mode": "Capped", "Uncapped", "Donating".
	Mode string `json:"mode"`
	// SMT is the number in Type ("Shared-SMT-4" → 4), 1 without SMT.
	SMT *int `json:"smt"`
	// EntitledCapacity is "Entitled Capacity" in processor units (2.00).
	EntitledCapacity *float64 `json:"entitled_capacity"`
	// OnlineVCPUs, MaxVCPUs are "Online Virtual CPUs", "Maximum Virtual CPUs".
	OnlineVCPUs *int `json:"online_vcpus"`
	MaxVCPUs    *int `json:"max_vcpus"`
	// OnlineMemoryMB, MaxMemoryMB are "Online Memory", "Maximum Memory" (MB).
	OnlineMemoryMB *int64 `json:"online_memory_mb"`
	MaxMemoryMB    *int64 `json:"max_memory_mb"`
	// SharedPoolID is "Shared Pool ID" (shared LPARs).
	SharedPoolID *int `json:"shared_pool_id,omitempty"`
	// VariableWeight is "Variable Capacity Weight" (uncapped shared LPARs).
	VariableWeight *int `json:"variable_weight,omitempty"`
	// PhysicalCPUsInSystem is "Active Physical CPUs in system".
	PhysicalCPUsInSystem *int `json:"physical_cpus_in_system,omitempty"`
	// MemoryMode is "Memory Mode": "Dedicated", "Shared", "Dedicated-Expanded".
	MemoryMode string `json:"memory_mode,omitempty"`
	// Fields is every "Label : value" line, as printed.
	Fields map[string]string `json:"fields"`
}

// AIXSMT is `smtctl`.
type AIXSMT struct {
	// Capable is "This system is SMT capable." (false: "is not SMT capable").
	Capable *bool `json:"capable"`
	// MaxThreads is "supports up to N SMT threads per processor".
	MaxThreads *int `json:"max_threads"`
	// Enabled is "SMT is currently enabled." / "disabled."
	Enabled *bool `json:"enabled"`
	// BootMode is the "SMT boot mode is ..." sentence's end: "not set",
	// "set to enabled", "set to disabled".
	BootMode string `json:"boot_mode,omitempty"`
	// Procs are the "procN has M SMT threads." lines with their bind
	// processors, sorted by name.
	Procs []AIXSMTProc `json:"procs"`
}

// AIXSMTProc is one processor of smtctl's report.
type AIXSMTProc struct {
	Name    string `json:"name"`    // proc0
	Threads int    `json:"threads"` // "proc0 has 4 SMT threads."
	// BindCPUs are the "Bind processor N is bound with procM" lines' N.
	BindCPUs []int `json:"bind_cpus"`
}

// AIXSRAD is one SRAD of `lssrad -av`.
type AIXSRAD struct {
	REF1  int      `json:"ref1"`   // the REF1 domain (a node, a book or a drawer) holding it
	SRAD  int      `json:"srad"`   // SRAD number
	MemMB *float64 `json:"mem_mb"` // MEM column (MB, with decimals)
	CPUs  []int    `json:"cpus"`   // CPU column (logical CPUs, "0-15"); [] for a memory-only SRAD
}

// AIXDevice is one line of `lsdev -Cc CLASS`: name, status, location, description.
type AIXDevice struct {
	Name     string `json:"name"`
	Status   string `json:"status"`             // Available, Defined, Stopped
	Location string `json:"location,omitempty"` // 02-00-01; empty for virtual devices
	// Description as printed: "Other FC SCSI Disk Drive" is a disk with
	// AIX's generic ODM definition (no vendor ODM / multipath driver);
	// "MPIO IBM 2076 FC Disk", "Virtual SCSI Disk Drive".
	Description string `json:"description"`
}

// AIXDisk is one hdisk.
type AIXDisk struct {
	// Name, Status, Location, Description are its `lsdev -Cc disk` line.
	Name        string `json:"name"`
	Status      string `json:"status"`
	Location    string `json:"location,omitempty"`
	Description string `json:"description"`
	// Generic is true when Description is AIX's generic definition ("Other
	// SCSI Disk Drive", "Other FC SCSI Disk Drive", "Other iSCSI Disk
	// Drive", ...): the storage vendor's ODM definitions are not installed.
	Generic bool `json:"generic"`
	// Attributes is `lsattr -El hdiskN`, keyed by attribute; nil (with an
	// absence "aix.disks.attributes") when it was not collected.
	Attributes map[string]AIXAttr `json:"attributes"`
	// QueueDepth, MaxTransfer (bytes, 0x40000 converted), Algorithm
	// (fail_over, round_robin, shortest_queue) and ReservePolicy
	// (no_reserve, single_path, PR_exclusive, PR_shared) are attributes
	// of lsattr -El hdiskN; nil or empty when the driver has none.
	QueueDepth    *int64 `json:"queue_depth"`
	MaxTransfer   *int64 `json:"max_transfer"`
	Algorithm     string `json:"algorithm,omitempty"`
	ReservePolicy string `json:"reserve_policy,omitempty"`
	// Paths are its `lspath` lines.
	Paths []AIXPath `json:"paths"`
	// IOStat is its `iostat -D` reports, in order: the first covers the time
	// since boot, each other one interval; nil when iostat -D did not list
	// the disk.
	IOStat []AIXDiskIOStat `json:"iostat"`
}

// AIXPath is one line of `lspath`: status, disk, parent adapter.
type AIXPath struct {
	Status string `json:"status"` // Enabled, Disabled, Failed, Defined, Missing, Available
	Parent string `json:"parent"` // fscsi0, vscsi0
	// Connection is the fourth column when lspath prints it (lspath -F with
	// connection), empty otherwise.
	Connection string `json:"connection,omitempty"`
}

// AIXDiskIOStat is one `iostat -D` report of one disk. Every figure is a
// pointer: a column this AIX level does not print is null. Service and
// queue times are milliseconds (AIX's "S" suffix, seconds, is converted),
// K/M/G/T suffixes of rates and counts are multiplied out.
type AIXDiskIOStat struct {
	// SinceBoot is true for the first report (averages since boot).
	SinceBoot bool `json:"since_boot"`
	// xfer: %tm_act, bps (bytes/s), tps, bread, bwrtn (bytes/s).
	TmActPct *float64 `json:"tm_act_pct"`
	BPS      *float64 `json:"bps"`
	TPS      *float64 `json:"tps"`
	BRead    *float64 `json:"bread"`
	BWrtn    *float64 `json:"bwrtn"`
	// read: rps, avgserv, minserv, maxserv (ms), timeouts, fails.
	RPS            *float64 `json:"rps"`
	ReadAvgServMS  *float64 `json:"read_avgserv_ms"`
	ReadMinServMS  *float64 `json:"read_minserv_ms"`
	ReadMaxServMS  *float64 `json:"read_maxserv_ms"`
	ReadTimeouts   *float64 `json:"read_timeouts"`
	ReadFails      *float64 `json:"read_fails"`
	WPS            *float64 `json:"wps"`
	WriteAvgServMS *float64 `json:"write_avgserv_ms"`
	WriteMinServMS *float64 `json:"write_minserv_ms"`
	WriteMaxServMS *float64 `json:"write_maxserv_ms"`
	WriteTimeouts  *float64 `json:"write_timeouts"`
	WriteFails     *float64 `json:"write_fails"`
	QueueAvgTimeMS *float64 `json:"queue_avgtime_ms"`
	QueueMinTimeMS *float64 `json:"queue_mintime_ms"`
	QueueMaxTimeMS *float64 `json:"queue_maxtime_ms"`
	AvgWQSz        *float64 `json:"avgwqsz"` // average wait queue size (AIX 5.3: avgqsz)
	AvgSQSz        *float64 `json:"avgsqsz"` // average service queue size
	SQFull         *float64 `json:"sqfull"`  // times the service queue was full: since boot in the first report, during the interval in the others
}

// AIXFCAdapter is one Fibre Channel adapter: `lsattr -El fcsN` and
// `fcstat -e fcsN`.
type AIXFCAdapter struct {
	Name        string `json:"name"`
	Status      string `json:"status,omitempty"`      // lsdev -Cc adapter
	Description string `json:"description,omitempty"` // lsdev -Cc adapter
	// PortSpeed is fcstat's "Port Speed (running)" as printed ("8 GBIT");
	// PortSpeedGbit its number.
	PortSpeed     string   `json:"port_speed,omitempty"`
	PortSpeedGbit *float64 `json:"port_speed_gbit"`
	// The three counters of fcstat -e's "FC SCSI Adapter Driver
	// Information": No DMA Resource Count (max_xfer_size too small), No
	// Adapter Elements Count, No Command Resource Count (num_cmd_elems
	// too small).
	NoDMAResourceCount     *int64 `json:"no_dma_resource_count"`
	NoAdapterElementsCount *int64 `json:"no_adapter_elements_count"`
	NoCommandResourceCount *int64 `json:"no_command_resource_count"`
	// EffectiveMaxTransfer is fcstat -e's "Effective max transfer value"
	// (bytes; AIX 7.1 TL2 and later print it).
	EffectiveMaxTransfer *int64 `json:"effective_max_transfer"`
	// NumCmdElems and MaxXferSize (bytes, 0x100000 converted) are
	// attributes of lsattr -El fcsN.
	NumCmdElems *int64 `json:"num_cmd_elems"`
	MaxXferSize *int64 `json:"max_xfer_size"`
	// Attributes is lsattr -El fcsN, keyed by attribute.
	Attributes map[string]AIXAttr `json:"attributes"`
	// Stats is every "Label: value" line of fcstat -e, keyed by its section
	// and label ("FC SCSI Adapter Driver Information/No DMA Resource Count"),
	// value as printed.
	Stats map[string]string `json:"stats"`
}

// AIXTunables are the kernel tunables, each keyed by its name as printed.
type AIXTunables struct {
	IOO    map[string]AIXValue `json:"ioo"`    // ioo -a (I/O: j2_*, aio_*, pv_min_pbuf, numfsbufs, ...)
	VMO    map[string]AIXValue `json:"vmo"`    // vmo -a (minperm%, maxperm%, lru_file_repage, lgpg_regions, lgpg_size, ...)
	NO     map[string]AIXValue `json:"no"`     // no -a (network)
	Schedo map[string]AIXValue `json:"schedo"` // schedo -a (scheduler)
	// VMORestricted are the restricted tunables of `vmo -F -a` (the lines
	// after its "##Restricted tunables" line: lru_file_repage on 6.1,
	// minperm%, maxperm%, maxclient% from 6.1, ...), which vmo -a does not
	// list; nil on AIX 5.3, which has no -F (and lists them in vmo -a).
	VMORestricted map[string]AIXValue `json:"vmo_restricted"`
	// IOORestricted are the restricted tunables of `ioo -F -a` likewise
	// (aio_fsfastpath, aio_fastpath, j2_* restricted ones, ...), which
	// ioo -a does not list; nil on AIX 5.3 (no -F).
	IOORestricted map[string]AIXValue `json:"ioo_restricted"`
}

// AIXDSCR is `dscrctl -q`: the Data Stream Control Register defaults. The
// low three bits of a DSCR value are its default prefetch depth (DPFD):
// 0 DPFD_DEFAULT (the platform's), 1 DPFD_NONE (hardware prefetch off,
// `dscrctl -n -b -s 1`), 2 to 7 shallowest to deepest.
type AIXDSCR struct {
	// StreamsVersion is "Data Streams Version" ("V2.06"), when printed.
	StreamsVersion string `json:"streams_version,omitempty"`
	// NumberOfStreams is number_of_streams: hardware streams of the platform.
	NumberOfStreams *int `json:"number_of_streams"`
	// PlatformDefaultPD is platform_default_pd: the firmware's default DSCR.
	PlatformDefaultPD *int64 `json:"platform_default_pd"`
	// PlatformDefaultPDName is its symbolic name as printed ("DPFD_DEEP").
	PlatformDefaultPDName string `json:"platform_default_pd_name,omitempty"`
	// OSDefaultPD is os_default_pd: the operating system's default DSCR
	// (what dscrctl -s sets; 0 leaves the platform's).
	OSDefaultPD *int64 `json:"os_default_pd"`
	// OSDefaultPDName is its symbolic name as printed ("DSCR_SSE | DPFD_DEEP").
	OSDefaultPDName string `json:"os_default_pd_name,omitempty"`
	// PrefetchDepth is the default prefetch depth in force: os_default_pd's
	// DPFD, or platform_default_pd's when the OS's is 0 (DPFD_DEFAULT).
	PrefetchDepth *int `json:"prefetch_depth"`
	// PrefetchOff is true when PrefetchDepth is 1 (DPFD_NONE): hardware
	// prefetch off for the processes that do not set their own DSCR.
	PrefetchOff *bool `json:"prefetch_off"`
}

// AIXPowerHA is `lssrc -ls clstrmgrES`, the PowerHA SystemMirror (HACMP)
// cluster manager's long status.
type AIXPowerHA struct {
	// Installed is false when the clstrmgrES subsystem is not defined
	// ("0513-085 The clstrmgrES Subsystem is not on file."): no PowerHA.
	Installed bool `json:"installed"`
	// State is the cluster manager's "Current state:" (ST_STABLE,
	// ST_INIT: cluster services stopped, NOT_CONFIGURED: no cluster
	// defined, ...), or "inoperative" when the subsystem is defined but
	// not running (0513-036); empty when not installed.
	State string `json:"state,omitempty"`
	// ClusterNode is true when PowerHA is installed and a cluster is
	// defined on this node (any state but NOT_CONFIGURED), running or not:
	// its daemons will need CPU under heavy writes when it runs.
	ClusterNode bool `json:"cluster_node"`
	// CLVersion is "CLversion:" (the cluster's version number), when printed.
	CLVersion *int `json:"cl_version,omitempty"`
	// VRMF is "local node vrmf is 7142" (PowerHA 7.1.4.2 as 7142), when printed.
	VRMF string `json:"vrmf,omitempty"`
}

// AIXMount is one line of `mount`.
type AIXMount struct {
	// Node is the remote node of an NFS mount, empty for a local one.
	Node string `json:"node,omitempty"`
	// Device is "mounted" (/dev/oradatalv, or the remote directory).
	Device string `json:"device"`
	// Path is "mounted over".
	Path string `json:"path"`
	// VFS is the file system type: jfs2, jfs, nfs3, nfs4, procfs, namefs.
	VFS string `json:"vfs"`
	// Date is when it was mounted, as printed ("Nov 10 09:12").
	Date string `json:"date,omitempty"`
	// Options are the options column split at commas (rw, cio, dio,
	// noatime, rbrw, log=/dev/hd8, log=INLINE).
	Options []string `json:"options"`
}

// AIXFilesystem is one file system of `lsfs -q`.
type AIXFilesystem struct {
	Name     string `json:"name"`               // the device (/dev/oradatalv)
	Nodename string `json:"nodename,omitempty"` // remote node; empty for "--"
	Mount    string `json:"mount"`              // Mount Pt
	VFS      string `json:"vfs"`                // jfs2, jfs, nfs
	// SizeBlocks is Size in 512-byte blocks (nil for "--").
	SizeBlocks *int64 `json:"size_blocks"`
	// Options are the Options column split at commas (empty for "--").
	Options []string `json:"options"`
	// Auto is the Auto column (mounted at boot); Accounting the last.
	Auto       *bool `json:"auto"`
	Accounting *bool `json:"accounting"`
	// AGBlkSize is the JFS2 file system block size ("block size" in the
	// -q line, bytes: 512, 1024, 2048, 4096). Redo logs want 512 (Oracle
	// writes them in 512-byte blocks; a larger agblksize demotes the I/O).
	// JFS's "frag size" when the file system is JFS.
	AGBlkSize *int64 `json:"agblksize"`
	// InlineLog is "inline log: yes".
	InlineLog *bool `json:"inline_log"`
	// Attributes is every "key: value" pair of the -q line, as printed
	// ("lv size", "fs size", "block size", "sparse files", "inline log",
	// "EAformat", "Quota", "DMAPI", "VIX", "EFS", "ISNAPSHOT", "MAXEXT",
	// "MountGuard"; JFS: "frag size", "nbpi", "compress", "bf", "ag").
	Attributes map[string]string `json:"attributes"`
}

// AIXPagingSpace is one line of `lsps -a`.
type AIXPagingSpace struct {
	Name    string `json:"name"`    // hd6
	PV      string `json:"pv"`      // Physical Volume
	VG      string `json:"vg"`      // Volume Group
	SizeMB  *int64 `json:"size_mb"` // Size (512MB; GB converted)
	UsedPct *int   `json:"used_pct"`
	Active  *bool  `json:"active"`
	Auto    *bool  `json:"auto"`
	Type    string `json:"type"`             // lv, nfs
	Chksum  *int   `json:"chksum,omitempty"` // AIX 6.1 and later
}

// AIXSvmonMemory is the "memory" and "pg space" lines of `svmon -G`, in
// 4 KB frames (svmon's default unit).
type AIXSvmonMemory struct {
	Size      *int64 `json:"size"`
	Inuse     *int64 `json:"inuse"`
	Free      *int64 `json:"free"`
	Pin       *int64 `json:"pin"`
	Virtual   *int64 `json:"virtual"`
	Mmode     string `json:"mmode,omitempty"` // Ded, Shar, Ded-E (AIX 6.1+)
	PgspSize  *int64 `json:"pgsp_size"`
	PgspInuse *int64 `json:"pgsp_inuse"`
}

// AIXPagePool is one page size pool of `svmon -G` ("PageSize PoolSize
// inuse pgsp pin virtual").
type AIXPagePool struct {
	// SizeKB is the page size: 4, 64, 16384 (16 MB), 16777216 (16 GB).
	SizeKB int64 `json:"size_kb"`
	// PoolSize is the pool's size in pages of this size: the 16 MB pool is
	// vmo lgpg_regions pages; nil ("-") for 4 KB and 64 KB pages, which have
	// no fixed pool.
	PoolSize *int64 `json:"pool_size"`
	// Inuse, Pgsp, Pin, Virtual are in 4 KB frames, as svmon prints them by
	// default.
	Inuse   *int64 `json:"inuse"`
	Pgsp    *int64 `json:"pgsp"`
	Pin     *int64 `json:"pin"`
	Virtual *int64 `json:"virtual"`
}

// AIXUser is one user of `lsuser -a capabilities USER`.
type AIXUser struct {
	Name string `json:"name"`
	// Capabilities are the capabilities attribute split at commas
	// (CAP_BYPASS_RAC_VMM, CAP_PROPAGATE, CAP_NUMA_ATTACH); [] when the
	// attribute is empty.
	Capabilities []string `json:"capabilities"`
}

// AIXRset is one resource set of `lsrset -av`.
type AIXRset struct {
	Type  string `json:"type"` // the T column: r (regular), a (exclusive), ...
	Name  string `json:"name"` // sys/sys0, sys/node.04.00000, oracle/rset1
	Owner string `json:"owner,omitempty"`
	Group string `json:"group,omitempty"`
	Mode  string `json:"mode,omitempty"`
	// CPUCount and MemoryCount are the CPU and Memory columns.
	CPUCount    *int   `json:"cpu_count"`
	MemoryCount *int64 `json:"memory_count"`
	// CPUs is the "CPU:" line of the verbose listing.
	CPUs []int `json:"cpus"`
	// Memory is the "MEM:" line as printed.
	Memory string `json:"memory,omitempty"`
}

// AIXProcess is one database process of `ps -ef`.
type AIXProcess struct {
	User  string `json:"user"` // UID column (a name)
	PID   int    `json:"pid"`
	PPID  int    `json:"ppid"`
	STime string `json:"stime"` // as printed: 09:15:02, or "Nov 10"
	TTY   string `json:"tty"`
	Time  string `json:"time"` // CPU time as printed
	Cmd   string `json:"cmd"`  // CMD, truncated to 256 bytes
	// Engine, Role, Instance as for Linux processes: oracle (pmon,
	// background, shadow, asm, listener), postgres, mysql, mariadb.
	Engine   string `json:"engine"`
	Role     string `json:"role"`
	Instance string `json:"instance,omitempty"`
}
