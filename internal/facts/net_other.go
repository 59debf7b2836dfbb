//go:build !linux

package facts

// readAttr reads a small attribute file and trims it (see net_linux.go).
func readAttr(r Root, p string) (string, error) {
	b, err := r.ReadFile(p)
	if err != nil {
		return "", err
	}
	return trimSpaceString(b), nil
}
