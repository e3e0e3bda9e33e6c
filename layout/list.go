package layout

import (
	"fmt"
	"strings"

	"github.com/tmemhq/tmem/internal/secrets"
)

// Listing is one memory file as `tmem list` shows it: where it is, its
// kind and, for typed memories and summaries, what its frontmatter says.
type Listing struct {
	Teammate string `json:"teammate"`
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	Type     string `json:"type"`
	Name     string `json:"name"`
	Date     string `json:"date"`
	Bytes    int64  `json:"bytes"`
	// Error says why the file could not be described (path:line: why);
	// the file is listed all the same.
	Error string `json:"error,omitempty"`
}

// ValidKind reports whether k names a kind of file.
func ValidKind(k string) bool {
	for _, x := range Kinds {
		if string(x) == k {
			return true
		}
	}
	return false
}

// KindNames lists the kinds, comma-separated, for messages.
func KindNames() string {
	var s []string
	for _, k := range Kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// List lists the memory files of one teammate, or of every teammate and
// CROSS-TEAM.md when teammate is "", keeping only kind when it is set.
func (w *Workspace) List(teammate string, kind Kind) ([]Listing, error) {
	files, err := w.listed(teammate)
	if err != nil {
		return nil, err
	}
	items := []Listing{}
	for _, fl := range files {
		if kind != "" && fl.Kind != kind {
			continue
		}
		it := Listing{Teammate: fl.Teammate, Kind: string(fl.Kind), Path: fl.Path, Type: fl.Type, Bytes: fl.Size}
		if !fl.Date.IsZero() {
			it.Date = fl.Date.Format(DateLayout)
		}
		if fl.Kind == KindTyped || fl.Kind == KindWeekly || fl.Kind == KindMonthly {
			w.describe(fl, &it)
		}
		items = append(items, it)
	}
	return items, nil
}

func (w *Workspace) listed(teammate string) ([]File, error) {
	if teammate != "" {
		if _, err := w.Teammate(teammate); err != nil {
			return nil, err
		}
		return w.Files(teammate)
	}
	var files []File
	if ct, ok := w.CrossTeam(); ok {
		files = append(files, ct)
	}
	mates, err := w.Teammates()
	if err != nil {
		return nil, err
	}
	for _, m := range mates {
		fs, err := w.Files(m.Name)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	return files, nil
}

// describe fills name, type and date from the file's frontmatter; a name
// written on several lines is given on one, and a secret in it as
// [REDACTED:kind]. Frontmatter that is not valid YAML is read as
// "key: value" lines, as recall and context read it, so all three show the
// same name; the YAML error is then the listing's Error.
func (w *Workspace) describe(fl File, it *Listing) {
	if fl.Size > MaxFileSize {
		it.Error = (&ParseError{Path: fl.Path, Err: fmt.Errorf("file is over the %d-byte limit; not parsed", MaxFileSize)}).Error()
		return
	}
	src, err := w.ReadFile(fl.Path, MaxFileSize)
	if err != nil {
		it.Error = err.Error()
		return
	}
	d, problem, err := ParseLenient(fl.Path, src)
	if err != nil {
		it.Error = err.Error()
		return
	}
	if problem != nil {
		it.Error = problem.Error() + "; its frontmatter was read as key: value lines"
	}
	it.Name = strings.Join(strings.Fields(d.Get("name")), " ") // one line, as list prints it
	it.Name, _ = secrets.Redact(it.Name)
	if t := d.Get("type"); t != "" && fl.Kind == KindTyped {
		it.Type = t
	}
	if it.Date == "" {
		if t := d.Date(); !t.IsZero() {
			it.Date = t.Format(DateLayout)
		}
	}
}
