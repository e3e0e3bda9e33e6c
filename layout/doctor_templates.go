package layout

import (
	"errors"
	"fmt"
	"io/fs"

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
	return out
}
