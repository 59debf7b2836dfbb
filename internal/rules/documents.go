package rules

import "strings"

// Document is a cited document as people know it. Text output names the
// document; JSON keeps the file name (Source.Doc) as the machine key.
type Document struct {
	File      string `json:"file"`
	Title     string `json:"title"`
	Author    string `json:"author,omitempty"`
	Publisher string `json:"publisher"`
	Year      string `json:"year"`
	// Short is the name a table column has room for ("Red Hat 2015").
	Short string `json:"short"`
	// A vendor's documentation (not a seed): where it is online, which
	// release, and the file in this repository (internal/rules/vendordocs)
	// that keeps the excerpts its quotes are checked against
	// (TestSourcesQuoteTheirVendorDoc), as the seeds' are.
	URL     string `json:"url,omitempty"`
	Version string `json:"version,omitempty"`
	KeptIn  string `json:"kept_in,omitempty"`
}

// Name is the document for a reader: “Title” (author, publisher, year).
func (d Document) Name() string {
	var by []string
	for _, s := range []string{d.Author, d.Publisher, d.Year} {
		if s != "" {
			by = append(by, s)
		}
	}
	return "“" + d.Title + "” (" + strings.Join(by, ", ") + ")"
}

// documents are the seed documents (/work/shared/seeds/README.md).
var documents = []Document{
	{File: Seed000, Title: "Optimizing Linux performance on HP Integrity Superdome X", Publisher: "Hewlett-Packard", Year: "2015", Short: "HP 2015"},
	{File: Seed001, Title: "bdt's Oracle blog", Publisher: "blog", Year: "2015", Short: "bdt 2015"},
	{File: Seed002, Title: "Jakub Wartak's blog, Performance category", Author: "Jakub Wartak", Publisher: "blog", Year: "2011–2016", Short: "Wartak 2011–16"},
	{File: Seed003, Title: "Tuning Red Hat Enterprise Linux for Databases", Author: "Sanjay Rao", Publisher: "Red Hat Summit", Year: "2015", Short: "Red Hat 2015"},
	{File: Seed004, Title: "Oracle DB and AIX Best Practices for Performance & Tuning", Author: "Ronan Bourlier, Loïc Fura", Publisher: "IBM Power Systems Technical University", Year: "2012", Short: "IBM 2012"},
}

// DocPostgreSQL15 is the PostgreSQL 15 documentation, a vendor document
// whose cited paragraphs are kept in vendordocs/postgresql-15.md. A
// Source's Section is "PAGE.html — PARAMETER (type)" as that file heads it.
const DocPostgreSQL15 = "postgresql-15.md"

// vendorDocuments are vendors' documentation, cited like the seeds.
var vendorDocuments = []Document{
	{File: DocPostgreSQL15, Title: "PostgreSQL 15 Documentation", Publisher: "The PostgreSQL Global Development Group", Year: "2022",
		Short: "PostgreSQL 15 docs", URL: "https://www.postgresql.org/docs/15/", Version: "15 (text of 15.20)",
		KeptIn: "internal/rules/vendordocs/postgresql-15.md"},
}

// Documents lists the seed documents.
func Documents() []Document { return append([]Document(nil), documents...) }

// VendorDocuments lists the vendor documents.
func VendorDocuments() []Document { return append([]Document(nil), vendorDocuments...) }

// DocumentOf finds a seed document by its file name.
func DocumentOf(file string) (Document, bool) {
	for _, d := range append(documents, vendorDocuments...) {
		if d.File == file {
			return d, true
		}
	}
	return Document{}, false
}

// DocName is how text output names a source's document: the seed's title,
// author, publisher and year, or the reference itself (a URL).
func (s Source) DocName() string {
	if d, ok := DocumentOf(s.Doc); ok {
		return d.Name()
	}
	return s.Doc
}

// DocShort is the short name of a source's document ("Red Hat 2015"), or
// the host of a URL ("docs.kernel.org").
func (s Source) DocShort() string {
	if d, ok := DocumentOf(s.Doc); ok {
		return d.Short
	}
	if _, rest, ok := strings.Cut(s.Doc, "://"); ok {
		host, _, _ := strings.Cut(rest, "/")
		return host
	}
	return s.Doc
}
