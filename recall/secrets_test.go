package recall

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestSearchRedactsSecrets(t *testing.T) {
	token := "ghp_" + "zQWBuTSOoRi4A9spHcVY5ncnsDkxkJ" + "0mLq17" // split: the repository holds no secret
	keyID := "AKIA" + "Z7QRSTUVWXY2345A"
	ws := newWorkspace(t, "ws")
	writeFile(t, ws, "beacon/memory/reference_ci_access.md",
		"---\nname: CI access "+keyID+"\ndescription: kestrel deploy credentials\ntype: reference\n---\n\n"+
			"## Kestrel deploy token\n\nThe kestrel deploy uses GITHUB_TOKEN="+token+" for now.\n")
	ix, _ := openIndex(t, ws, Options{})
	hits := runSearch(t, ix, Query{Text: "kestrel deploy token", Teammates: []string{"beacon"}, RecencyDepth: -1})
	var hit *Hit
	for i := range hits {
		if hits[i].Path == "beacon/memory/reference_ci_access.md" {
			hit = &hits[i]
		}
	}
	if hit == nil {
		t.Fatalf("the memory was not found: %v", paths(hits))
	}
	out, err := json.Marshal(hits)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{token, keyID} {
		if strings.Contains(string(out), secret) {
			t.Errorf("search results show %s:\n%s", secret, out)
		}
	}
	if !strings.Contains(hit.Text, "GITHUB_TOKEN=[REDACTED:github-token] for now") {
		t.Errorf("hit text %q lacks the redaction marker", hit.Text)
	}
	if hit.Name != "CI access [REDACTED:aws-access-key]" {
		t.Errorf("hit name %q, want the key id redacted", hit.Name)
	}
	if want := []string{"github-pat", "aws-access-key-id"}; !reflect.DeepEqual(hit.Redacted, want) {
		t.Errorf("Redacted = %v, want %v", hit.Redacted, want)
	}
}
