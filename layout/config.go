package layout

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/tmemhq/tmem/internal/lazyregexp"
)

// CheckConfig checks the workspace's configuration file name (tmem.yaml)
// against schema, a pointer to the struct the file must decode into: YAML
// that does not parse, values of the wrong type and keys schema does not
// know (usually a typo, which would be ignored) are reported with their
// lines. A missing file is fine; one that is not a regular file is never
// opened (Check reports it).
func (w *Workspace) CheckConfig(name string, schema interface{}) []Finding {
	fi, err := w.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return []Finding{{Path: name, Severity: SevError, Message: fmt.Sprintf("cannot read: %v", withoutPath(err))}}
	case !fi.Mode().IsRegular():
		return nil
	}
	src, err := w.ReadFile(name, MaxFileSize)
	if err != nil {
		return []Finding{{Path: name, Severity: SevError, Message: err.Error()}}
	}
	out := checkBOM(name, src)
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	err = dec.Decode(schema)
	var te *yaml.TypeError
	switch {
	case err == nil, errors.Is(err, io.EOF): // io.EOF: an empty file
	case errors.As(err, &te):
		for _, e := range te.Errors {
			out = append(out, configFinding(name, e))
		}
	default:
		out = append(out, Finding{Path: name, Line: yamlLine(err), Severity: SevError, Message: "does not parse: " + yamlMessage(err)})
	}
	return out
}

var (
	lineMsgRe = lazyregexp.New(`^line ([0-9]+): (.*)$`)
	unknownRe = lazyregexp.New(`^field (\S+) not found in type `)
)

// configFinding turns one of yaml's decoding errors ("line 3: field x not
// found in type compact.Config") into a finding.
func configFinding(name, e string) Finding {
	f := Finding{Path: name, Severity: SevError, Message: e}
	if m := lineMsgRe().FindStringSubmatch(e); m != nil {
		f.Line, _ = strconv.Atoi(m[1])
		f.Message = m[2]
	}
	if m := unknownRe().FindStringSubmatch(f.Message); m != nil {
		f.Severity, f.Message = SevWarning, fmt.Sprintf("unknown key %q: tmem ignores it (a typo?)", m[1])
	}
	return f
}
