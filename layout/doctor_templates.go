package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/tmemhq/tmem/templates"
)

// checkTemplates reports the template overrides in templates/ that tmem
// cannot use: too large, or no text (a NUL byte, invalid UTF-8). context
// then uses the built-in template, init and compact stop on it. One that
// is not a regular file or links outside is left to checkTree.
func (w *Workspace) checkTemplates() []Finding {
	var out []Finding
	read := w.Templates()
	for _, name := range templates.Names() {
		_, err := read(name)
		if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotRegular) || errors.Is(err, ErrOutside) {
			continue
		}
		f := Finding{Path: "templates/" + name, Severity: SevError}
		var pe *ParseError
		if errors.As(err, &pe) {
			f.Line, err = pe.Line, pe.Err
		}
		f.Message = fmt.Sprintf("%v: tmem cannot use this template override (context falls back to the built-in one, init and compact stop on it); fix or remove it", withoutPath(err))
		out = append(out, f)
	}
	return append(out, w.strayTemplates()...)
}

// strayTemplates warns of the files in templates/ named as a template is
// but for case ("soul.md"): such an override is never used, unless the
// disk ignores case (the template's own name then finds it). Other files
// there are a person's own.
func (w *Workspace) strayTemplates() []Finding {
	ents, err := w.ReadDir("templates")
	if err != nil {
		return nil // none, or checkTree names the folder
	}
	names := templates.Names()
	var out []Finding
	for _, e := range ents {
		for _, n := range names {
			if e.Name() != n && strings.EqualFold(n, e.Name()) && !slices.Contains(names, e.Name()) && !w.exists("templates/"+n) {
				out = append(out, Finding{Path: "templates/" + e.Name(), Severity: SevWarning,
					Message: "no template is named so, and tmem never reads it: did you mean " + n + "?"})
			}
		}
	}
	return out
}

// exists reports whether rel can be stat'ed.
func (w *Workspace) exists(rel string) bool {
	_, err := w.Stat(rel)
	return err == nil
}
