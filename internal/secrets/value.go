package secrets

import (
	"fmt"
	"sort"
	"strings"
)

// RedactValue returns v, a value decoded from YAML or JSON (maps with
// string keys, slices, scalars), with every secret in its strings, keys
// and numbers shown as its marker, and the rules found, sorted, once
// each. A value under a key is scanned after that key ("db_password: …"),
// so that the rules that need a name see it, as they do in the file; keys
// that redact alike get "#2", "#3", … so that no value is lost. v is not
// changed.
func RedactValue(v interface{}) (interface{}, []string) {
	rules := map[string]bool{}
	out := redactUnder("", v, rules)
	var list []string
	for r := range rules {
		list = append(list, r)
	}
	sort.Strings(list)
	return out, list
}

// redactUnder is RedactValue for v, found under key ("" for none).
func redactUnder(key string, v interface{}, rules map[string]bool) interface{} {
	switch x := v.(type) {
	case string:
		return redactNamed(key, x, rules)
	case map[string]interface{}:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the same "#2" on every run
		out := make(map[string]interface{}, len(x))
		for _, k := range keys {
			out[uniqueKey(out, redactNamed("", k, rules))] = redactUnder(k, x[k], rules)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = redactUnder(key, e, rules)
		}
		return out
	case int, int64, uint64, float64:
		s := fmt.Sprint(x)
		if out := redactNamed(key, s, rules); out != s {
			return out
		}
	}
	return v
}

// redactNamed is s redacted, scanned after "key: " when key is set and
// holds no secret itself.
func redactNamed(key, s string, rules map[string]bool) string {
	if key != "" {
		prefix := key + ": "
		if out, found := Redact(prefix + s); strings.HasPrefix(out, prefix) {
			note(found, rules)
			return out[len(prefix):]
		}
	}
	out, found := Redact(s)
	note(found, rules)
	return out
}

func note(found []Finding, rules map[string]bool) {
	for _, f := range found {
		rules[f.Rule] = true
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
