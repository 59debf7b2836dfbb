package manpage

// -update for `go test ./... -update` (internal/golden).
import _ "github.com/dbhost/dbhost/internal/golden"
