package report

import "github.com/dbhost/dbhost/internal/jsonfmt"

// JSON renders v as indented JSON with arrays of scalars on one line (CPU
// lists of hundreds of ids stay readable) and a trailing newline.
func JSON(v any) ([]byte, error) { return jsonfmt.Marshal(v) }
