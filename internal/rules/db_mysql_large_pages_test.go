package rules

import (
	"strings"
	"testing"
)

func TestMySQLLargePages(t *testing.T) {
	const id = "db.mysql-large-pages"
	s := liveHost(0, 0)
	myLive(s)
	f := fires(t, id, s, WorkloadOLTP, DBMySQL)
	if !strings.Contains(f.Recommended, "2048 pages of 2.0 MiB") {
		t.Fatalf("%+v", f)
	}
	s = liveHost(1000, 1000)
	myLive(s, "large_pages=ON")
	if f = fires(t, id, s, WorkloadOLTP, DBMySQL); !strings.Contains(f.Current, "1048 pages short") {
		t.Fatalf("%+v", f)
	}
	s = liveHost(3000, 3000)
	myLive(s, "large_pages=ON")
	quiet(t, id, s, WorkloadOLTP, DBMySQL)
	s = liveHost(0, 0)
	myLive(s, "innodb_buffer_pool_size=134217728")
	quiet(t, id, s, WorkloadOLTP, DBMySQL)
}
