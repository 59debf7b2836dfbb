package facts

import "strings"

// parseCmdline splits a kernel command line into key → value ("" for flags).
// Double quotes group words ("dyndbg=\"file x.c +p\""); everything after a
// lone "--" belongs to init and is not a kernel parameter.
func parseCmdline(s string) map[string]string {
	args := map[string]string{}
	var words []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			have = true
		case !inQuote && (r == ' ' || r == '\t' || r == '\n'):
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		words = append(words, cur.String())
	}
	for _, w := range words {
		if w == "--" {
			break
		}
		k, v, _ := strings.Cut(w, "=")
		// The kernel treats '-' and '_' alike in parameter names.
		args[strings.ReplaceAll(k, "-", "_")] = v
	}
	return args
}
