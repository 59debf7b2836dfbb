package facts

import (
	"errors"
	"regexp"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// The active tuned profile's settings: tuned.conf of each active profile and
// of everything it includes, merged the way tuned 2.x's profile loader and
// merger do. Runs after readConfig (it needs the active profile's name).
func init() { register("tuned-profile", StageDerived, readTunedProfile, "config.tuned.profile") }

// tunedProfileDirs are where tuned looks for a profile, first match wins:
// the administrator's copies before the packaged ones (tuned ≥ 2.23 moved
// both under profiles/).
var tunedProfileDirs = []string{"/etc/tuned/profiles", "/etc/tuned", "/usr/lib/tuned/profiles", "/usr/lib/tuned"}

// maxTunedIncludes bounds the include chain (tuned has no limit; a loop is
// cut by its processed-files list, as here).
const maxTunedIncludes = 16

// TunedEntry is one option line of a tuned.conf: its unit ("[cpu]"), option,
// value as written, and line number.
type TunedEntry struct {
	Unit, Option, Value string
	Line                int
}

var tunedSection = regexp.MustCompile(`^\[([^\[\]]+)\]$`)

// ParseTunedConf parses a tuned.conf as tuned's ConfigParser reads it:
// "[unit]" headers, "option = value" lines ('=' is the only delimiter),
// comment lines starting with '#' or ';', inline comments after " #", and
// continuation lines (indented) that extend the previous value. An option
// before any header, or a line that is none of these, is an error naming the
// line; a repeated option keeps its last value.
func ParseTunedConf(s string) ([]TunedEntry, error) {
	var out []TunedEntry
	unit := ""
	for i, raw := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		n := i + 1
		line := strings.TrimRight(raw, " \t\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';' {
			continue
		}
		if k := strings.Index(line, " #"); k >= 0 {
			line = strings.TrimRight(line[:k], " \t")
			trimmed = strings.TrimSpace(line)
		}
		if (line[0] == ' ' || line[0] == '\t') && len(out) > 0 && out[len(out)-1].Unit == unit && unit != "" {
			// A continuation line: ConfigParser appends it to the value.
			last := &out[len(out)-1]
			last.Value = strings.TrimSpace(last.Value + " " + trimmed)
			continue
		}
		if m := tunedSection.FindStringSubmatch(trimmed); m != nil {
			unit = strings.TrimSpace(m[1])
			continue
		}
		k, v, ok := strings.Cut(trimmed, "=")
		k = strings.TrimSpace(k)
		switch {
		case strings.HasPrefix(trimmed, "["):
			return nil, parseErr(n, "expected a unit header \"[name]\", got %q", trunc(trimmed, 60))
		case !ok || k == "":
			return nil, parseErr(n, "expected \"option = value\", got %q", trunc(trimmed, 60))
		case unit == "":
			return nil, parseErr(n, "option %q before any [unit] header", trunc(k, 40))
		}
		out = append(out, TunedEntry{Unit: unit, Option: k, Value: strings.TrimSpace(v), Line: n})
	}
	return out, nil
}

// tunedUnit is one merged unit: its options with where each was set.
type tunedUnit map[string]snapshot.TunedSetting

func readTunedProfile(c *Collector) {
	t := &c.Snap.Config.Tuned
	if t.ActiveProfile == nil || strings.TrimSpace(*t.ActiveProfile) == "" {
		return // no active profile (or none readable): nothing is applied
	}
	if legacyTuned(c) {
		c.AbsentReason("config.tuned.profile", "/etc/tune-profiles/"+*t.ActiveProfile,
			"RHEL 6's tuned 0.2 profile (ktune.sysconfig, sysctl.ktune, tuned.conf monitors) is not a tuned 2.x profile: its settings are not read")
		return
	}
	units := map[string]tunedUnit{}
	var files []string
	processed := map[string]bool{}
	// load is tuned's _load_profile: includes first (depth first), then the
	// profile itself, each merged over what was loaded before it.
	var load func(names []string, depth int) (string, error)
	load = func(names []string, depth int) (string, error) {
		for _, name := range names {
			if depth > maxTunedIncludes || strings.ContainsAny(name, "/\\") || strings.Contains(name, "${") {
				return "/etc/tuned/active_profile", errors.New("profile " + trunc(name, 60) +
					" cannot be resolved (a variable, a path, or more than 16 includes deep)")
			}
			file := ""
			for _, d := range tunedProfileDirs {
				if p := d + "/" + name + "/tuned.conf"; c.Root.Exists(p) {
					file = p
					break
				}
			}
			if file == "" {
				return tunedProfileDirs[len(tunedProfileDirs)-1] + "/" + name + "/tuned.conf",
					errors.New("profile " + name + " not found in " + strings.Join(tunedProfileDirs, ", "))
			}
			if processed[file] {
				continue // tuned loads a file once: an include loop ends here
			}
			processed[file] = true
			b, err := c.readConfigFile(file)
			if err != nil {
				return file, err
			}
			entries, err := ParseTunedConf(string(b))
			if err != nil {
				return file, err
			}
			var includes []string
			var own []TunedEntry
			for _, e := range entries {
				if e.Unit == "main" && e.Option == "include" {
					includes = splitTunedList(e.Value)
					continue
				}
				own = append(own, e)
			}
			if p, err := load(includes, depth+1); err != nil {
				return p, err
			}
			files = append(files, file)
			mergeTuned(units, own, file)
		}
		return "", nil
	}
	if p, err := load(strings.Fields(*t.ActiveProfile), 0); err != nil {
		c.lineAbsent("config.tuned.profile", p, err)
		return
	}
	var out []snapshot.TunedSetting
	for _, u := range units {
		for _, s := range u {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Unit != out[j].Unit {
			return out[i].Unit < out[j].Unit
		}
		return out[i].Option < out[j].Option
	})
	t.Profile, t.ProfileFiles = out, files
}

// mergeTuned is tuned's Merger for one more profile: a unit with replace=1
// (or a new one) replaces the older unit; otherwise drop= removes older
// options and the profile's options override.
func mergeTuned(units map[string]tunedUnit, entries []TunedEntry, file string) {
	byUnit := map[string][]TunedEntry{}
	var order []string
	for _, e := range entries {
		if _, ok := byUnit[e.Unit]; !ok {
			order = append(order, e.Unit)
		}
		byUnit[e.Unit] = append(byUnit[e.Unit], e)
	}
	for _, name := range order {
		es := byUnit[name]
		opts := tunedUnit{}
		var drop []string
		for _, e := range es {
			opts[e.Option] = snapshot.TunedSetting{Unit: name, Option: e.Option, Value: e.Value, File: file, Line: e.Line}
			if e.Option == "drop" {
				drop = splitTunedList(e.Value)
			}
		}
		old, ok := units[name]
		if !ok || tunedTrue(opts["replace"].Value) {
			units[name] = opts
			continue
		}
		for _, d := range drop {
			delete(old, d)
		}
		for k, v := range opts {
			old[k] = v
		}
	}
}

// splitTunedList splits an include= or drop= list as tuned does (on ',' or ';').
func splitTunedList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func tunedTrue(v string) bool {
	switch v {
	case "1", "True", "true":
		return true
	}
	return false
}
