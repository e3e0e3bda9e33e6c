package secrets

import (
	"fmt"
	"sort"
	"strings"
)

// RedactValue returns v, a value decoded from the YAML or JSON text src
// (maps with string keys, slices, scalars), with every secret in its
// strings, keys and numbers shown as its marker, and the rules found,
// sorted, once each. v is not changed. A value is scanned after its key
// ("db_password: …"), or after the nearest key above it that names a
// secret, so that the rules that need a name see one; and every secret
// found in src is taken out wherever its text comes back in v (an alias
// of an anchored password, a quoted value with a comma in it). Keys that
// redact alike get "#2", "#3", … so that no value is lost.
func RedactValue(v interface{}, src string) (interface{}, []string) {
	r := valueRedactor{rules: map[string]bool{}}
	for _, f := range Scan(src) {
		r.known = append(r.known, known{text: src[f.Start:f.End], f: f})
	}
	sort.SliceStable(r.known, func(i, j int) bool { return len(r.known[i].text) > len(r.known[j].text) })
	out := r.under("", v)
	var list []string
	for rule := range r.rules {
		list = append(list, rule)
	}
	sort.Strings(list)
	return out, list
}

// known is a secret found in the source text.
type known struct {
	text string
	f    Finding
}

type valueRedactor struct {
	known []known
	rules map[string]bool
}

// under redacts v, found under key ("" for none).
func (r valueRedactor) under(key string, v interface{}) interface{} {
	switch x := v.(type) {
	case string:
		return r.named(key, x)
	case map[string]interface{}:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the same "#2" on every run
		out := make(map[string]interface{}, len(x))
		for _, k := range keys {
			inner := k
			if key != "" && nameRule(k) == nil && nameRule(key) != nil {
				inner = key // password: {current: …}
			}
			out[uniqueKey(out, r.named("", k))] = r.under(inner, x[k])
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = r.under(key, e)
		}
		return out
	case int, int64, uint64, float64:
		s := fmt.Sprint(x)
		if out := r.named(key, s); out != s {
			return out
		}
	}
	return v
}

// named is s redacted: the secrets of src it holds, then what a scan
// finds in it after "key: " when key is set and holds no secret itself,
// else alone.
func (r valueRedactor) named(key, s string) string {
	for _, k := range r.known {
		if strings.Contains(s, k.text) {
			s = strings.ReplaceAll(s, k.text, Marker(k.f.Kind))
			r.rules[k.f.Rule] = true
		}
	}
	if key != "" {
		prefix := key + ": "
		if out, found := Redact(prefix + s); strings.HasPrefix(out, prefix) {
			r.note(found)
			return out[len(prefix):]
		}
	}
	out, found := Redact(s)
	r.note(found)
	return out
}

func (r valueRedactor) note(found []Finding) {
	for _, f := range found {
		r.rules[f.Rule] = true
	}
}

// uniqueKey is k, or k#2, k#3, … when m has it already.
func uniqueKey(m map[string]interface{}, k string) string {
	if !has(m, k) {
		return k
	}
	for n := 2; ; n++ {
		if kn := fmt.Sprintf("%s#%d", k, n); !has(m, kn) {
			return kn
		}
	}
}

func has(m map[string]interface{}, k string) bool {
	_, ok := m[k]
	return ok
}
