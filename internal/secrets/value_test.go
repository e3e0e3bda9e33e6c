package secrets

import (
	"reflect"
	"testing"
)

// TestRedactValue: a decoded frontmatter shows no secret, in a value
// whose rule needs its key's name (a password), in a nested mapping or a
// list, in a key, or as a number; keys that redact alike keep both values;
// what has none comes back as it was, and v is left as it was.
func TestRedactValue(t *testing.T) {
	pw := "Zq8-" + rnd(90, alnumChars, 11)
	in := map[string]interface{}{
		"name":        "Vault",
		"db_password": pw,
		"creds":       map[string]interface{}{"password": pw, "user": "app"},
		"tokens":      []interface{}{publishedGitHubToken, "none"},
		"ghp_" + "zQWBuTSOoRi4A9spHcVY5ncnsDkxkJ" + "0mLq17":     "key holds one",
		publishedGitHubToken[:len(publishedGitHubToken)-1] + "8": "another such key",
		"retries": 3,
	}
	got, rules := RedactValue(in)
	want := map[string]interface{}{
		"name":                      "Vault",
		"db_password":               "[REDACTED:password]",
		"creds":                     map[string]interface{}{"password": "[REDACTED:password]", "user": "app"},
		"tokens":                    []interface{}{"[REDACTED:github-token]", "none"},
		"[REDACTED:github-token]":   "key holds one",
		"[REDACTED:github-token]#2": "another such key",
		"retries":                   3,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RedactValue =\n%#v\nwant\n%#v", got, want)
	}
	if w := []string{"github-pat", "password-assignment"}; !reflect.DeepEqual(rules, w) {
		t.Errorf("rules %q, want %q", rules, w)
	}
	if in["db_password"] != pw {
		t.Errorf("the value given was changed")
	}
	if out, rules := RedactValue(map[string]interface{}{"name": "x", "n": 1}); !reflect.DeepEqual(out, map[string]interface{}{"name": "x", "n": 1}) || rules != nil {
		t.Errorf("a value without secrets came back as %v, %q", out, rules)
	}
}
