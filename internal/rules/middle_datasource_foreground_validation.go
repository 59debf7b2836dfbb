package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// middle.datasource-foreground-validation: a JBoss/WildFly datasource that
// validates a connection in the foreground every time the application
// borrows it (validate-on-match) adds a database round trip to every
// request; background validation checks idle connections out of band.
func init() {
	Register(Rule{
		ID:       "middle.datasource-foreground-validation",
		Area:     AreaMiddle,
		Severity: SevWarning,
		OS:       []string{OSLinux, OSAIX}, // reads only the artifacts
		Title:    "Connection pool validates connections in the foreground on every borrow",
		Sources: []Source{
			{Doc: Seed002, Section: "Very simple demonstration how to limit latency impact (improve consumer experience) by switching to out-of-band/background validation connection checking for DB connections — with 6ms RTT with JDBC Connection Pool with background connection check",
				Quote: "the average consumer experience can be improved from ~18ms to ~10ms"},
		},
		Scope: Scope{
			DBVersions: "any database behind a JBoss/WildFly (IronJacamar) datasource; 002: WildFly Core 2.0.10, Oracle",
			Note:       "from datasource XML given with --artifact (standalone.xml/domain.xml or *-ds.xml, JBoss AS 5 form too)",
		},
		Pending: PendingRestart,
		Check:   checkDatasourceValidation,
	})
}

func checkDatasourceValidation(in *Input) Outcome {
	if in.Artifacts == nil || len(in.Artifacts.Datasources) == 0 {
		return NotApplicable("no datasource XML given (--artifact standalone.xml or *-ds.xml)")
	}
	var fs []Finding
	var checked []string
	for _, d := range in.Artifacts.Datasources {
		name := d.JNDIName
		if name == "" {
			name = d.PoolName
		}
		if d.Enabled != nil && !*d.Enabled {
			checked = append(checked, name+": disabled")
			continue
		}
		if !d.ValidatesOnBorrow() {
			what := "no foreground validation"
			if d.ValidatesInBackground() {
				what = "background validation"
			}
			checked = append(checked, name+": "+what)
			continue
		}
		how := "validate-on-match = true"
		if d.ValidateOnMatch == nil {
			how = "validate-on-match not set: JBoss AS 5 validates on match when a check is configured and background validation is off"
			if d.BackgroundValidationMillis != nil {
				how += " (background-validation-minutes alone does not turn it on)"
			}
		}
		check := d.CheckValidConnectionSQL
		if check == "" {
			check = d.ValidConnectionChecker
		} else {
			check = "SQL " + check
		}
		fs = append(fs, Finding{
			Setting:     fmt.Sprintf("datasource:%s validation", name),
			Current:     fmt.Sprintf("foreground validation on every borrow (%s; check %s)", how, check),
			Recommended: "background-validation true (validate-on-match false), with a native valid-connection-checker",
			Evidence:    fmt.Sprintf("%s:%d: <%s> %s: %s", d.File, d.Line, d.Element, name, how),
			Why: "002: with 6 ms one-way delay to the database, a JSP doing one INSERT took 17.867 ms per request with the " +
				"default foreground check (about 4 packets) and 9.927 ms with background validation (2 packets); the more " +
				"getConnection() calls per request, the larger the gain.",
			Fix: Fix{Runtime: []string{}, Persistent: []string{dsFix(d)}},
			Risk: "A connection that breaks between two background checks reaches the application, which must retry (or keep " +
				"the pool's exception sorter / stale-connection checker configured). Needs a datasource reload.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	return Passed("%s", strings.Join(checked, "; ")).Reading(strings.Join(checked, "; ")) // none read: the engine's could not check
}

// dsChecker is the native valid-connection-checker for the datasource's database.
func dsChecker(url string, legacy bool) string {
	u := strings.ToLower(url)
	pkg := "org.jboss.jca.adapters.jdbc.extensions."
	if legacy {
		pkg = "org.jboss.resource.adapter.jdbc.vendor."
	}
	switch {
	case strings.Contains(u, "jdbc:oracle"):
		if legacy {
			return pkg + "OracleValidConnectionChecker"
		}
		return pkg + "oracle.OracleValidConnectionChecker"
	case strings.Contains(u, "jdbc:postgresql"):
		if legacy {
			return ""
		}
		return pkg + "postgres.PostgreSQLValidConnectionChecker"
	case strings.Contains(u, "jdbc:mysql"), strings.Contains(u, "jdbc:mariadb"):
		if legacy {
			return pkg + "MySQLValidConnectionChecker"
		}
		return pkg + "mysql.MySQLValidConnectionChecker"
	}
	return ""
}

func dsFix(d *artifacts.Datasource) string {
	checker := dsChecker(d.ConnectionURL, d.Legacy)
	if d.Legacy {
		s := fmt.Sprintf("%s, <%s> %s: <validate-on-match>false</validate-on-match> <background-validation>true</background-validation> "+
			"<background-validation-minutes>1</background-validation-minutes>", d.File, d.Element, d.JNDIName)
		if checker != "" {
			s += " <valid-connection-checker-class-name>" + checker + "</valid-connection-checker-class-name>"
		}
		return s
	}
	s := fmt.Sprintf("%s, <%s jndi-name=%q> <validation>: <validate-on-match>false</validate-on-match> "+
		"<background-validation>true</background-validation> <background-validation-millis>30000</background-validation-millis>", d.File, d.Element, d.JNDIName)
	if checker != "" {
		s += fmt.Sprintf(" <valid-connection-checker class-name=%q/> (002: native ping, smaller packets than SQL)", checker)
	}
	return s
}
