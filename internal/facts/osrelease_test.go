package facts

import (
	"strings"
	"testing"
)

func TestParseOSRelease(t *testing.T) {
	m := parseOSRelease(strings.NewReader("# comment\nNAME=\"Oracle Linux Server\"\nVERSION_ID='8.9'\nID=ol\nPRETTY_NAME=\"Oracle Linux Server 8.9\"\nbroken line\n"))
	if m["PRETTY_NAME"] != "Oracle Linux Server 8.9" || m["VERSION_ID"] != "8.9" || m["ID"] != "ol" {
		t.Errorf("got %v", m)
	}
}
