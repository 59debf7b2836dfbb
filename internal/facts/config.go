package facts

import (
	"fmt"
	"path"
)

func init() { register("config", StageSources, readConfig, "config") }

// dbUsers are the accounts whose uid is recorded in Config.Users.
var dbUsers = []string{"oracle", "grid", "postgres", "mysql"}

// maxConfigFileBytes bounds how much of one configuration file is read.
const maxConfigFileBytes = 4 << 20

func readConfig(c *Collector) {
	cf := &c.Snap.Config
	cf.Limits = readLimits(c)
	cf.SysctlFiles = readSysctlFiles(c)
	readTuned(c)
	cf.Cgconfig = readCgconfig(c)
	if users, _ := c.readPasswd("config.users"); users != nil {
		cf.Users = map[string]int{}
		for _, n := range dbUsers {
			if uid, ok := users[n]; ok {
				cf.Users[n] = uid
			}
		}
	}
}

// readConfigFile reads a configuration file, bounded in size.
func (c *Collector) readConfigFile(p string) ([]byte, error) {
	b, err := c.Root.readRaw(p, nil, true, maxConfigFileBytes+1)
	if err != nil {
		return nil, err
	}
	if len(b) > maxConfigFileBytes {
		return nil, parseErr(0, "file larger than %d bytes", maxConfigFileBytes)
	}
	return b, nil
}

// lineAbsent records a bad line of a file as fact's absence, path "file:line".
func (c *Collector) lineAbsent(fact, file string, err error) {
	p := file
	if pe, ok := err.(*ParseError); ok && pe.Line > 0 {
		p = fmt.Sprintf("%s:%d", file, pe.Line)
	}
	c.Absent(fact, p, err)
}

// resolveLink follows one symlink level of a host path inside the root.
func (c *Collector) resolveLink(p string) (string, bool) {
	t, err := c.Root.Readlink(p)
	if err != nil {
		return p, false
	}
	if !path.IsAbs(t) {
		t = path.Join(path.Dir(p), t)
	}
	return path.Clean(t), true
}
