package artifacts

import (
	"strings"
	"testing"
)

func bp(p *bool) string {
	if p == nil {
		return "nil"
	}
	if *p {
		return "true"
	}
	return "false"
}

func TestParseDatasourcesStandalone(t *testing.T) {
	b := readTestdata(t, "standalone.xml")
	if k := Recognize(b); k != KindDatasource {
		t.Fatalf("Recognize = %q", k)
	}
	ds, errs := ParseDatasources(b)
	noErrors(t, errs)
	if len(ds) != 3 {
		t.Fatalf("datasources = %d", len(ds))
	}
	ex, ora, xa := ds[0], ds[1], ds[2]
	if ex.PoolName != "ExampleDS" || ex.HasValidation() || ex.ValidatesOnBorrow() || ex.ValidatesInBackground() || ex.Line != 6 {
		t.Errorf("ExampleDS = %+v", ex)
	}
	if ora.JNDIName != "java:jboss/datasources/OracleDS" || ora.Element != "datasource" || ora.Legacy || bp(ora.Enabled) != "true" ||
		ora.ConnectionURL != "jdbc:oracle:thin:@//db-vip:1521/ORCL" || i64(ora.MinPoolSize) != 100 || i64(ora.MaxPoolSize) != 100 {
		t.Errorf("OracleDS = %+v", ora)
	}
	if bp(ora.ValidateOnMatch) != "true" || bp(ora.BackgroundValidation) != "false" || ora.BackgroundValidationMillis != nil ||
		ora.CheckValidConnectionSQL != "SELECT 1 FROM DUAL" || !strings.HasSuffix(ora.ValidConnectionChecker, "OracleValidConnectionChecker") {
		t.Errorf("OracleDS validation = %+v", ora)
	}
	if !ora.ValidatesOnBorrow() || ora.ValidatesInBackground() {
		t.Error("OracleDS validates in the foreground")
	}
	if xa.Element != "xa-datasource" || bp(xa.Enabled) != "false" || xa.Expressions["enabled"] != "${env.XA_ENABLED:false}" ||
		i64(xa.BackgroundValidationMillis) != 10000 || xa.ValidatesOnBorrow() || !xa.ValidatesInBackground() {
		t.Errorf("OracleXADS = %+v", xa)
	}
}

func TestParseDatasourcesDsXML(t *testing.T) {
	ds, errs := ParseDatasources(readTestdata(t, "oracle-ds.xml"))
	noErrors(t, errs)
	if len(ds) != 1 || ds[0].ValidatesOnBorrow() || !ds[0].ValidatesInBackground() || i64(ds[0].BackgroundValidationMillis) != 30000 {
		t.Fatalf("ds = %+v", ds)
	}
	b := readTestdata(t, "legacy-oracle-ds.xml")
	if k := Recognize(b); k != KindDatasource {
		t.Fatalf("Recognize legacy = %q", k)
	}
	ds, errs = ParseDatasources(b)
	noErrors(t, errs)
	if len(ds) != 1 {
		t.Fatalf("legacy = %+v", ds)
	}
	l := ds[0]
	if !l.Legacy || l.JNDIName != "OracleLegacyDS" || i64(l.MaxPoolSize) != 20 || i64(l.BackgroundValidationMillis) != 120000 ||
		!strings.HasSuffix(l.ValidConnectionChecker, "vendor.OracleValidConnectionChecker") {
		t.Errorf("legacy = %+v", l)
	}
	if !l.ValidatesOnBorrow() {
		t.Error("legacy form with a check and no background validation validates on borrow")
	}
}

func TestParseDatasourcesErrors(t *testing.T) {
	in := "<datasources>\n<datasource pool-name=\"A\" enabled=\"maybe\">\n<validation><validate-on-match>yes</validate-on-match>\n" +
		"<background-validation-millis>soon</background-validation-millis></validation></datasource>\n" +
		"<datasource pool-name=\"B\">\n<pool></datasource>\n"
	ds, errs := ParseDatasources([]byte(in))
	if len(ds) != 1 || ds[0].PoolName != "A" || ds[0].ValidateOnMatch != nil || ds[0].Enabled != nil {
		t.Fatalf("ds = %+v", ds)
	}
	if len(errs) != 4 {
		t.Fatalf("errors = %v", errs)
	}
	for i, want := range []string{"line 2: enabled", "line 3: <validate-on-match>", "line 4: <background-validation-millis>", "line 6: malformed XML"} {
		if !strings.Contains(errs[i].Error(), want) {
			t.Errorf("error %d = %v, want %s", i, errs[i], want)
		}
	}
}

func FuzzParseDatasources(f *testing.F) {
	f.Add([]byte(`<datasources><datasource pool-name="p"><validation><validate-on-match>true</validate-on-match></validation></datasource></datasources>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, _ := ParseDatasources(b)
		for _, d := range ds {
			if d == nil {
				t.Fatal("nil datasource")
			}
			d.ValidatesOnBorrow()
		}
	})
}

// TestDatasourceURLPassword (issue 24, item 9's review): a JDBC URL's
// password is not kept (a datasource is shown in findings and reports),
// in each form a JDBC driver takes; the rest of the URL is, as the rule
// that picks a validation checker from it needs.
func TestDatasourceURLPassword(t *testing.T) {
	doc := `<datasources>
  <datasource jndi-name="java:/A" pool-name="A"><connection-url>jdbc:postgresql://db1/app?user=a&amp;password=SECRET&amp;ssl=true</connection-url></datasource>
  <datasource jndi-name="java:/B" pool-name="B"><connection-url>jdbc:oracle:thin:app/SECRET@db1:1521/svc</connection-url></datasource>
  <datasource jndi-name="java:/C" pool-name="C"><connection-url>jdbc:mysql://app:SECRET@db1:3306/app</connection-url></datasource>
  <datasource jndi-name="java:/D" pool-name="D"><connection-url>${env.URL:jdbc:postgresql://db1/app?password=SECRET}</connection-url></datasource>
</datasources>`
	ds, errs := ParseDatasources([]byte(doc))
	noErrors(t, errs)
	want := []string{"jdbc:postgresql://db1/app?user=a&password=xxxxx&ssl=true", "jdbc:oracle:thin:app/xxxxx@db1:1521/svc",
		"jdbc:mysql://app:xxxxx@db1:3306/app",
		"${env.URL:jdbc:postgresql://db1/app?password=xxxxx"} // a connection-url is not resolved; the value runs to a blank
	if len(ds) != len(want) {
		t.Fatalf("%d datasources", len(ds))
	}
	for i, d := range ds {
		if d.ConnectionURL != want[i] {
			t.Errorf("%s: connection_url %q, want %q", d.JNDIName, d.ConnectionURL, want[i])
		}
		for _, e := range d.Expressions {
			if strings.Contains(e, "SECRET") {
				t.Errorf("%s: expression %q", d.JNDIName, e)
			}
		}
	}
}
