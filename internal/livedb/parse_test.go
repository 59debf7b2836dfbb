package livedb

import (
	"fmt"
	"strings"
	"testing"
)

func TestParsePostmasterPID(t *testing.T) {
	// PostgreSQL 15's file (listen address and shmem key lines follow).
	sock, port, err := parsePostmasterPID(strings.NewReader("4242\n/var/lib/postgresql/15/main\n1700000000\n5433\n/var/run/postgresql\n*\n  5433001     32768\nready   \n"))
	if err != nil || sock != "/var/run/postgresql" || port != "5433" {
		t.Errorf("%q %q %v", sock, port, err)
	}
	// No unix socket: the fifth line is empty.
	if sock, _, err := parsePostmasterPID(strings.NewReader("1\r\n/d\r\n1\r\n5432\r\n\r\n")); err != nil || sock != "" {
		t.Errorf("%q %v", sock, err)
	}
	for _, bad := range []string{"", "1\n/d\n", "1\n/d\n1\nport\n/s\n"} {
		if _, _, err := parsePostmasterPID(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParsePostmasterPID(f *testing.F) {
	f.Add(uint16(5432), "/var/run/postgresql", "/var/lib/postgresql/15/main")
	f.Add(uint16(1), "", "/d")
	f.Fuzz(func(t *testing.T, port uint16, sockDir, data string) {
		if strings.ContainsAny(sockDir+data, "\r\n") || strings.TrimSpace(sockDir) != sockDir {
			return
		}
		text := fmt.Sprintf("1234\n%s\n1700000000\n%d\n%s\nlocalhost\n", data, port, sockDir)
		s, p, err := parsePostmasterPID(strings.NewReader(text))
		if err != nil || s != sockDir || p != fmt.Sprint(port) {
			t.Fatalf("%q: %q %q %v", text, s, p, err)
		}
	})
}

func TestParseUnixListeners(t *testing.T) {
	const procNetUnix = `Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 20001 /run/systemd/notify
0000000000000000: 00000002 00000000 00010000 0001 01 30002 @/tmp/abstract
0000000000000000: 00000003 00000000 00000000 0001 03 30003 /run/mysqld/mysqld.sock
0000000000000000: 00000002 00000000 00010000 0001 01 30004 /run/mysqld/mysqld.sock
0000000000000000: 00000003 00000000 00000000 0001 03 30005
`
	got, err := parseUnixListeners(strings.NewReader(procNetUnix), map[string]bool{"30002": true, "30003": true, "30004": true, "30005": true})
	if err != nil || got != "/run/mysqld/mysqld.sock" {
		t.Errorf("%q %v", got, err)
	}
	if got, err := parseUnixListeners(strings.NewReader(procNetUnix), map[string]bool{"1": true}); err != nil || got != "" {
		t.Errorf("none: %q %v", got, err)
	}
	if _, err := parseUnixListeners(strings.NewReader("Num x\n0: 1 0 zz 1 01 5 /x\n"), nil); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad flags: %v", err)
	}
}

func FuzzParseUnixListeners(f *testing.F) {
	f.Add(uint32(0x10000), uint64(12345), "/run/mysqld/mysqld.sock")
	f.Add(uint32(0), uint64(1), "/tmp/x y")
	f.Fuzz(func(t *testing.T, flags uint32, inode uint64, path string) {
		if path == "" || strings.ContainsAny(path, "\r\n") || strings.Join(strings.Fields(path), " ") != path {
			return
		}
		ino := fmt.Sprint(inode)
		text := fmt.Sprintf("Num       RefCount Protocol Flags    Type St Inode Path\n0000000000000000: 00000002 00000000 %08X 0001 01 %s %s\n", flags, ino, path)
		got, err := parseUnixListeners(strings.NewReader(text), map[string]bool{ino: true})
		want := ""
		if flags&acceptCon != 0 && !strings.HasPrefix(path, "@") {
			want = path
		}
		if err != nil || got != want {
			t.Fatalf("%q: %q %v, want %q", text, got, err, want)
		}
	})
}

func TestMyVersionNum(t *testing.T) {
	for v, want := range map[string]int{"10.11.19-MariaDB-0+deb12u1": 101119, "8.0.36": 80036, "5.7.44-log": 50744, "x": 0, "8.0.360": 0} {
		if got := myVersionNum(v); got != want {
			t.Errorf("%s: %d", v, got)
		}
	}
}

func TestDSNPasswordsAndScrub(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://u:p%40ss@h/db":            "p%40ss",
		"host=h password=secret user=u":       "secret",
		"host=h password='sec ret' user=u":    "'sec", // quoted with a space: the first word is scrubbed
		"monitor:pw1@unix(/run/mysqld.sock)/": "pw1",
	} {
		got := dsnPasswords(dsn)
		if len(got) == 0 || got[0] != strings.Trim(want, `'`) {
			t.Errorf("%s: %q", dsn, got)
		}
	}
	if s := scrub("failed for pw1 at pw1", "", "pw1"); s != "failed for xxxxx at xxxxx" {
		t.Error(s)
	}
	for v, want := range map[string]string{"/tmp/x": "/tmp/x", "/a b": `'/a b'`, `o'k`: `'o\'k'`, "": "''"} {
		if got := kvQuote(v); got != want {
			t.Errorf("kvQuote(%q) = %q", v, got)
		}
	}
}
