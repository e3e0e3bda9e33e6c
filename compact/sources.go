package compact

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// sourceRef is one item of a summary's `sources:` list: a file (relative
// to the memory folder), the hash of the content summarised, and where
// that content can be read now once it left memory/ (the archive file
// whose section has the file's name and hash):
//
//   - 2026-03-09.md sha256:0123456789ab archive/2026-03.md
type sourceRef struct {
	File  string
	SHA   string // "sha256:" and 12 hex digits
	Where string // "" while the file is still in memory/
}

func (r sourceRef) String() string {
	s := r.File
	for _, f := range []string{r.SHA, r.Where} {
		if f != "" {
			s += " " + f
		}
	}
	return s
}

// same reports whether r names the same content as file with hash sha.
func (r sourceRef) same(file, sha string) bool { return r.File == file && r.SHA == shortSum(sha) }

func parseSourceRef(s string) sourceRef {
	f := strings.Fields(s)
	r := sourceRef{}
	if len(f) > 0 {
		r.File = f[0]
	}
	if len(f) > 1 {
		r.SHA = f[1]
	}
	if len(f) > 2 {
		r.Where = f[2]
	}
	return r
}

// readSources returns a summary's `sources:` list.
func readSources(d *layout.Doc) []sourceRef {
	var out []sourceRef
	for _, s := range d.List("sources") {
		out = append(out, parseSourceRef(s))
	}
	return out
}

// sourceList holds a summary's sources while a unit changes them.
type sourceList struct{ refs []sourceRef }

// has reports whether the list already holds file with hash sha.
func (l *sourceList) has(file, sha string) bool {
	for _, r := range l.refs {
		if r.same(file, sha) {
			return true
		}
	}
	return false
}

// add records file with hash sha, keeping a known location. A version of
// file listed as still in memory/ goes: file holds this one now, and that
// one is kept nowhere.
func (l *sourceList) add(file, sha, where string) {
	for i, r := range l.refs {
		if r.same(file, sha) {
			if where != "" {
				l.refs[i].Where = where
			}
			return
		}
	}
	kept := l.refs[:0]
	for _, r := range l.refs {
		if r.File != file || r.Where != file {
			kept = append(kept, r)
		}
	}
	l.refs = append(kept, sourceRef{File: file, SHA: shortSum(sha), Where: where})
}

// locate sets where every listed version of file is now.
func (l *sourceList) locate(file, sha, where string) {
	for i, r := range l.refs {
		if r.same(file, sha) {
			l.refs[i].Where = where
		}
	}
}

func (l *sourceList) strings() []string {
	refs := append([]sourceRef(nil), l.refs...)
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].File < refs[j].File })
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.String()
	}
	return out
}

// shortSum is the hash form used in citations.
func shortSum(s string) string { return "sha256:" + s[:12] }

// summaryFile renders a weekly or monthly file: its frontmatter (type,
// week or month, teammate, period, sources), kept as written where it
// does not change, then body.
func summaryFile(existing *layout.Doc, rel string, kind Kind, key, unitName, teammate, period string, sources []string, body string) ([]byte, error) {
	d := existing
	if d == nil {
		d = &layout.Doc{Path: rel}
	}
	for _, kv := range []struct {
		k string
		v interface{}
	}{{"type", string(kind)}, {key, unitName}, {"teammate", teammate}, {"period", period}, {"sources", sources}} {
		if existing != nil && sameValue(d, kv.k, kv.v) {
			continue
		}
		if err := d.Set(kv.k, kv.v); err != nil {
			return nil, err
		}
	}
	d.Body = []byte("\n" + strings.TrimSpace(body) + "\n")
	return d.Bytes(), nil
}

func sameValue(d *layout.Doc, k string, v interface{}) bool {
	switch v := v.(type) {
	case string:
		return d.Get(k) == v
	case []string:
		got := d.List(k)
		if len(got) != len(v) {
			return false
		}
		for i := range v {
			if got[i] != v[i] {
				return false
			}
		}
		return true
	}
	return false
}

// sum is the hex SHA-256 of b.
func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
