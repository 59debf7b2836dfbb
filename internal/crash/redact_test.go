package crash

import (
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedact: each form of secret a command line can carry, and what must
// be kept of it (the user, the host, the other flags).
func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://mon:SECRET@127.0.0.1:1/db", "postgres://mon:xxxxx@127.0.0.1:1/db"},
		{"postgresql://mon:S%40CRET@db1,db2:5433/app?sslmode=require", "postgresql://mon:xxxxx@db1,db2:5433/app?sslmode=require"},
		{"postgres://mon:p@ss:w@rd@db1/app", "postgres://mon:xxxxx@db1/app"},
		{"postgres://mon@db1/app", "postgres://mon@db1/app"},
		{"postgres://db1/app?user=mon&password=SECRET&sslmode=disable", "postgres://db1/app?user=mon&password=xxxxx&sslmode=disable"},
		{"mysql://root:SECRET@db1:3306/x", "mysql://root:xxxxx@db1:3306/x"},
		{"qemu+ssh://admin@kvm1/system", "qemu+ssh://admin@kvm1/system"},
		{"host=db1 user=mon password=SECRET dbname=postgres", "host=db1 user=mon password=xxxxx dbname=postgres"},
		{"host=db1 password = 'SE CR\\'ET' user=mon", "host=db1 password = xxxxx user=mon"},
		{"host=db1 PASSWORD=SECRET", "host=db1 PASSWORD=xxxxx"},
		{"host=db1 sslpassword=SECRET", "host=db1 sslpassword=xxxxx"},
		{"mon:SECRET@tcp(db1:3306)/", "mon:xxxxx@tcp(db1:3306)/"},
		{"mon:SE:C@RET@unix(/run/mysqld/mysqld.sock)/app?tls=false", "mon:xxxxx@unix(/run/mysqld/mysqld.sock)/app?tls=false"},
		{"mon:SECRET@/app", "mon:xxxxx@/app"},
		{"monitor@tcp(db1:3306)/", "monitor@tcp(db1:3306)/"},
		{"--mysql=mon:SECRET@tcp(db1)/", "--mysql=mon:xxxxx@tcp(db1)/"},
		{"--password=SECRET", "--password=xxxxx"},
		{"--pass=SECRET", "--pass=xxxxx"},
		{"PGPASSWORD=SECRET MYSQL_PWD=SECRET2 pgbench", "PGPASSWORD=xxxxx MYSQL_PWD=xxxxx pgbench"},
		{`db --dsn "postgres://u:SECRET@h/d" --duration 30s`, `db --dsn "postgres://u:xxxxx@h/d" --duration 30s`},
		// Free text: an unquoted value ends at white space only (a quote that
		// ends it may be the password's).
		{`db --dsn 'host=h password=SECRET' --password SECRET2 --runs 3`, `db --dsn 'host=h password=xxxxx --password xxxxx --runs 3`},
		{"--db-password SECRET --token=SECRET", "--db-password xxxxx --token=xxxxx"},
		{"--root /srv/trees/db1 --state-dir /var/lib/x", "--root /srv/trees/db1 --state-dir /var/lib/x"},
		{"--passes=3 --compass 1", "--passes=3 --compass 1"},
		{"sqlplus system/SECRET@ORCL @x.sql", "sqlplus system/xxxxx@ORCL @x.sql"},
		{`expdp scott/"SE@C/RET"@//db1:1521/pdb1 directory=d`, "expdp scott/xxxxx@//db1:1521/pdb1 directory=d"},
		{"-Durl=jdbc:oracle:thin:app/SECRET@db1:1521/svc", "-Durl=jdbc:oracle:thin:app/xxxxx@db1:1521/svc"},
		{"sqlplus / as sysdba", "sqlplus / as sysdba"},
		{"jdbc:oracle:thin:@//db-vip:1521/ORCL", "jdbc:oracle:thin:@//db-vip:1521/ORCL"},
		{"jdbc:oracle:thin:@db1:1521:ORCL", "jdbc:oracle:thin:@db1:1521:ORCL"},
		{"/usr/lib/systemd/system/getty@tty1.service", "/usr/lib/systemd/system/getty@tty1.service"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestRedactArgs: a flag's value is one connection string (a password with
// white space in it is redacted whole), the word after a password flag is
// the password, and nothing else changes.
func TestRedactArgs(t *testing.T) {
	in := []string{"audit", "--pg", "postgres://mon:S E C@db1/app", "--mysql", "mon:S E C@tcp(db1:3306)/",
		"--pg=host=db1 password='S E C'", "--dsn", "mon:SEC@/x", "--password", "SECRET", "--root", "/t", "--", "--password"}
	want := []string{"audit", "--pg", "postgres://mon:xxxxx@db1/app", "--mysql", "mon:xxxxx@tcp(db1:3306)/",
		"--pg=host=db1 password=xxxxx", "--dsn", "mon:xxxxx@/x", "--password", "xxxxx", "--root", "/t", "--", "--password"}
	got := RedactArgs(in)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("RedactArgs\n got %q\nwant %q", got, want)
	}
	if in[2] != "postgres://mon:S E C@db1/app" {
		t.Errorf("RedactArgs changed its argument: %q", in)
	}
}

// dsnForm builds a connection string holding the password pw, and what it
// is once redacted.
type dsnForm struct {
	name string
	// ok: the form can hold pw (the driver would read it back).
	ok    func(pw string) bool
	build func(pw string) string
	// escape: how the password is written in it (url-encoded's
	// percent-encoding), when not as it is.
	escape func(pw string) string
}

// pgQuote quotes a key=value value the way libpq reads it.
func pgQuote(pw string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
}

func hasAny(s, chars string) bool { return strings.ContainsAny(s, chars) }

var dsnForms = []dsnForm{
	{"url", func(pw string) bool { return !hasAny(pw, "/?#") }, func(pw string) string { return "postgres://mon:" + pw + "@db1:5432/app" }, nil},
	{"url-encoded", func(string) bool { return true }, func(pw string) string {
		return "postgres://" + url.UserPassword("mon", pw).String() + "@db1:5432/app?sslmode=disable"
	}, func(pw string) string { return strings.TrimPrefix(url.UserPassword("", pw).String(), ":") }},
	{"url-query", func(pw string) bool { return !hasAny(pw, "&# \t\n\r\v\f") }, func(pw string) string {
		return "postgres://db1/app?user=mon&password=" + pw + "&sslmode=disable"
	}, nil},
	{"kv", func(pw string) bool { return pw != "" && !hasAny(pw, "'\"\\ \t\n\r\v\f") }, func(pw string) string { return "host=db1 user=mon password=" + pw + " dbname=app" }, nil},
	{"kv-quoted", func(string) bool { return true }, func(pw string) string { return "host=db1 user=mon password = " + pgQuote(pw) + " dbname=app" }, nil},
	{"mysql-tcp", func(string) bool { return true }, func(pw string) string { return "mon:" + pw + "@tcp(db1:3306)/app" }, nil},
	{"mysql-unix", func(string) bool { return true }, func(pw string) string { return "mon:" + pw + "@unix(/run/mysqld/mysqld.sock)/" }, nil},
	{"mysql-bare", func(string) bool { return true }, func(pw string) string { return "mon:" + pw + "@/app" }, nil},
	{"oracle", func(pw string) bool { return pw != "" && !hasAny(pw, "/@'\" \t\n\r\v\f") }, func(pw string) string { return "system/" + pw + "@//db1:1521/orcl" }, nil},
	{"oracle-quoted", func(pw string) bool { return !hasAny(pw, "\"\n") }, func(pw string) string { return `scott/"` + pw + `"@ORCL` }, nil},
}

// checkForm: pw is in none of what a command line holding it in form f
// becomes, as the value of its flag (RedactArgs) and, when the password has
// no white space, as free text (Redact: experiment --bench 'db --dsn ...').
func checkForm(t *testing.T, f dsnForm, pw string) {
	t.Helper()
	if !f.ok(pw) {
		return
	}
	raw, dsn := pw, f.build(pw)
	// The password is found only where it is: a password that is also a
	// piece of the rest ("mon", "db1", "//") cannot be told from it.
	skeleton := "audit --mysql --pg= --password --pass= db --dsn  --duration 30s \" -c 2 " + f.build(Redacted)
	if pw == "" || strings.Contains(skeleton, pw) || strings.Contains(pw, "\x00") || strings.Contains(pw, Redacted) {
		return
	}
	if f.escape != nil {
		pw = f.escape(pw)
		if strings.Contains(skeleton, pw) {
			return
		}
	}
	flag := map[bool]string{true: "--mysql", false: "--pg"}[strings.HasPrefix(f.name, "mysql")]
	args := RedactArgs([]string{"audit", flag, dsn, flag + "=" + dsn, "--password", raw, "--pass=" + raw})
	if got := strings.Join(args, " "); leaks(got, pw) {
		t.Errorf("%s: password %q in RedactArgs: %q", f.name, pw, got)
	}
	if strings.Join(args[:3], " ") == "audit "+flag+" "+dsn {
		t.Errorf("%s: %q unchanged", f.name, dsn)
	}
	redactDSN := RedactDSN
	if flag == "--mysql" {
		redactDSN = redactMySQL // mon://#@tcp(db1)/ is a URL, unless it is known to be a MySQL DSN
	}
	if got := redactDSN(dsn); leaks(got, pw) || !strings.Contains(got, Redacted) {
		t.Errorf("%s: the DSN's redactor (%q) = %q", f.name, dsn, got)
	}
	// In free text, a MySQL DSN whose password starts with "//" reads
	// as a URL (mon://pw@...): only a --mysql value is known to be one.
	if !hasAny(pw, " \t\n\r\v\f'\"") && !(strings.HasPrefix(f.name, "mysql") && strings.HasPrefix(pw, "//")) {
		for _, text := range []string{dsn, "db --dsn " + dsn + " --duration 30s", `db --dsn "` + dsn + `" -c 2`} {
			if got := Redact(text); leaks(got, pw) {
				t.Errorf("%s: password %q in Redact(%q) = %q", f.name, pw, text, got)
			}
		}
	}
}

// leaks: pw is in out, where the marks of what was redacted are not read
// as a piece of a password ("x " in "password=xxxxx dbname=app").
func leaks(out, pw string) bool {
	return strings.Contains(strings.ReplaceAll(out, Redacted, "\x00"), strings.ReplaceAll(pw, Redacted, "\x00"))
}

// randomPassword draws a password from letters, digits, the punctuation a
// password generator uses and, some of the time, white space and quotes.
func randomPassword(r *rand.Rand) string {
	const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	const punct = "!#$%&()*+,-./:;<=>?@[]^_{|}~"
	const hard = " '\"\\\t"
	alpha := plain
	if r.IntN(2) == 0 {
		alpha += punct
	}
	if r.IntN(4) == 0 {
		alpha += hard
	}
	b := make([]byte, 6+r.IntN(20))
	for i := range b {
		b[i] = alpha[r.IntN(len(alpha))]
	}
	return string(b)
}

// TestRedactProperty: random passwords in every form of connection string
// never come out of the redactor.
func TestRedactProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 9))
	n := 1500
	if testing.Short() {
		n = 300
	}
	for range n {
		pw := randomPassword(r)
		for _, f := range dsnForms {
			checkForm(t, f, pw)
		}
	}
}

// FuzzRedact: the same property, the password chosen by the fuzzer.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"SECRET", "p@ss:w/rd", "a b'c\\d", "x@tcp(h)/", "//", "password=", "&x=y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pw string) {
		for _, form := range dsnForms {
			checkForm(t, form, pw)
		}
	})
}

// TestReportRedacts: the crash file and the report hold neither the
// command line's password nor one in the panic's value or in a hint.
func TestReportRedacts(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	defer Setup("unknown", nil)
	Setup("1.2.3", []string{"audit", "--pg", "postgres://mon:SECRET1@127.0.0.1:1/db", "--mysql", "mon:SECRET2@tcp(db1:3306)/"})
	defer SetHints(Hints())
	AddHint("'dbhost bench --cleanup --dsn \"host=h password=SECRET3\"'")
	var b strings.Builder
	Report(&b, "connect postgres://mon:SECRET4@db1/app: refused", []byte("goroutine 1 [running]:\n"))
	files, _ := filepath.Glob(filepath.Join(tmp, "dbhost-internal-error-*.txt"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	body, _ := os.ReadFile(files[0])
	err := Error("postgres://mon:SECRET5@db1/app", nil)
	for what, text := range map[string]string{"report": b.String(), "file": string(body), "error": err.Error()} {
		if strings.Contains(text, "SECRET") {
			t.Errorf("the %s holds a password:\n%s", what, text)
		}
	}
	wantIn := "command: dbhost audit --pg postgres://mon:xxxxx@127.0.0.1:1/db --mysql mon:xxxxx@tcp(db1:3306)/\n"
	if !strings.Contains(string(body), wantIn) {
		t.Errorf("file lacks %q:\n%s", wantIn, body)
	}

	t.Setenv("TMPDIR", filepath.Join(tmp, "missing"))
	b.Reset()
	Report(&b, "boom", []byte("goroutine 1 [running]:\n"))
	if strings.Contains(b.String(), "SECRET") || !strings.Contains(b.String(), "mon:xxxxx@127.0.0.1") {
		t.Errorf("no file: the report must name the command line without its password:\n%s", b.String())
	}
}
