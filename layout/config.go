package layout

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

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
	for _, pe := range decodeErrors(name, src, schema) {
		out = append(out, configFinding(pe))
	}
	return out
}

// decodeErrors decodes the YAML src (the file path) into schema, keys it
// does not know counting as errors, and returns the errors with their
// lines; none for an empty file.
func decodeErrors(path string, src []byte, schema interface{}) []*ParseError {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	err := dec.Decode(schema)
	if err == nil || errors.Is(err, io.EOF) { // io.EOF: an empty file
		return nil
	}
	return yamlErrors(path, string(src), err)
}

// UnknownKeys returns the keys of the YAML src (the file path) that
// schema, a pointer to the struct the file must decode into, does not
// know, as the warnings CheckConfig gives for them, with their lines; none
// when src does not parse (the caller refuses that).
func UnknownKeys(path string, src []byte, schema interface{}) []Finding {
	var out []Finding
	for _, pe := range decodeErrors(path, src, schema) {
		if unknownRe().MatchString(pe.Err.Error()) {
			out = append(out, configFinding(pe))
		}
	}
	return out
}

// YAMLError is an error of the YAML parser or decoder about the file path,
// whose text is src, as *ParseErrors that carry the line holding the
// mistake ("tmem.yaml:3: does not parse: …"), one for each value the
// decoder refused, joined.
func YAMLError(path string, src []byte, err error) error {
	var errs []error
	for _, pe := range yamlErrors(path, string(src), err) {
		errs = append(errs, pe)
	}
	return errors.Join(errs...)
}

// yamlErrors splits an error of the YAML parser or decoder into one
// *ParseError for each value it refused ("line 3: cannot unmarshal …").
// src is the YAML, parsed again to find the line of a syntax error.
func yamlErrors(path, src string, err error) []*ParseError {
	var te *yaml.TypeError
	switch {
	case errors.As(err, &te):
		var out []*ParseError
		for _, e := range te.Errors {
			out = append(out, lineError(path, e))
		}
		return out
	case strings.HasPrefix(err.Error(), "yaml: "): // the parser's
		line, msg := yamlProblem(src, err)
		return []*ParseError{{Path: path, Line: line, Err: errors.New("does not parse: " + msg)}}
	}
	return []*ParseError{lineError(path, err.Error())}
}

// lineError is a *ParseError about path saying e, at the line e may
// start with ("line 3: …").
func lineError(path, e string) *ParseError {
	e = redacted(e)
	pe := &ParseError{Path: path, Err: errors.New(e)}
	if m := lineMsgRe().FindStringSubmatch(e); m != nil {
		pe.Line, _ = strconv.Atoi(m[1])
		pe.Err = errors.New(m[2])
	}
	return pe
}

var (
	lineMsgRe = lazyregexp.New(`^line ([0-9]+): (.*)$`)
	unknownRe = lazyregexp.New(`^field (\S+) not found in type `)
)

// configFinding turns one of yaml's errors ("tmem.yaml:3: field x not
// found in type compact.Config") into a finding.
func configFinding(pe *ParseError) Finding {
	f := Finding{Path: pe.Path, Line: pe.Line, Severity: SevError, Message: pe.Err.Error()}
	if m := unknownRe().FindStringSubmatch(f.Message); m != nil {
		f.Severity, f.Message = SevWarning, fmt.Sprintf("unknown key %q: tmem ignores it (a typo?)", m[1])
	}
	return f
}
