package secrets

import (
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// TestRedactValue: a frontmatter decoded from YAML shows no secret: not
// in a value whose rule needs its key's name (a password), nor under a
// key that names a secret above it, nor in a nested mapping or a list, a
// key, a number, an alias of an anchored password, or a quoted password
// with a comma; keys that redact alike keep both values; what has none
// comes back as it was, and v is left as it was.
func TestRedactValue(t *testing.T) {
	pw := "Zq8-" + rnd(90, alnumChars, 11)
	comma := "Pb2-x," + rnd(91, alnumChars, 12)
	other := publishedGitHubToken[:len(publishedGitHubToken)-1] + "8"
	src := "name: Vault\n" +
		"db_password: &pw " + pw + "\n" +
		"backup: *pw\n" +
		"comma_password: \"" + comma + "\"\n" +
		"creds: {password: " + pw + ", user: app}\n" +
		"password: {current: Yx7-" + rnd(92, alnumChars, 11) + "}\n" +
		"tokens: [" + publishedGitHubToken + ", none]\n" +
		publishedGitHubToken + ": key holds one\n" +
		other + ": another such key\n" +
		"retries: 3\n"
	var in map[string]interface{}
	if err := yaml.Unmarshal([]byte(src), &in); err != nil {
		t.Fatal(err)
	}
	got, rules := RedactValue(in, src)
	want := map[string]interface{}{
		"name":                      "Vault",
		"db_password":               "[REDACTED:password]",
		"backup":                    "[REDACTED:password]",
		"comma_password":            "[REDACTED:password]",
		"creds":                     map[string]interface{}{"password": "[REDACTED:password]", "user": "app"},
		"password":                  map[string]interface{}{"current": "[REDACTED:password]"},
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
	if in["db_password"] != pw || !strings.Contains(src, comma) {
		t.Errorf("the value given was changed")
	}
	if out, rules := RedactValue(map[string]interface{}{"name": "x", "n": 1}, "name: x\nn: 1\n"); !reflect.DeepEqual(out, map[string]interface{}{"name": "x", "n": 1}) || rules != nil {
		t.Errorf("a value without secrets came back as %v, %q", out, rules)
	}
}
