package compact

import (
	"context"
	"strings"
	"testing"
)

// TestSecretNoteNamesItsSource: the note about a secret a summary left
// out names the file and line that hold it, so a person can find it
// (after the run, in the archive copy of that file).
func TestSecretNoteNamesItsSource(t *testing.T) {
	token := fakeToken()
	ws := fromTxtar(t, "-- beacon/SOUL.md --\n# Beacon\n")
	writeFile(t, ws, "beacon/memory/2026-11-02.md", "# 2026-11-02\n\n## Rotated the deploy key\n\nThe new key is "+token+" for now.\n", day("2026-11-02"))
	for _, f := range []string{"feedback_keys_one.md", "feedback_keys_two.md"} {
		writeFile(t, ws, "beacon/memory/"+f, "---\nname: Keep keys out of logs "+f+"\ndescription: keys belong in the vault\ntype: feedback\n---\n\nKeep keys such as "+token+" out of logs and in the vault.\n", day("2026-06-01"))
	}
	res, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"weekly 2026-W45: left out a secret (github-pat) that beacon/memory/2026-11-02.md:5 holds and the summary would have quoted",
		"wisdom: left out a secret (github-pat) that beacon/memory/feedback_keys_one.md:7 holds and the summary would have quoted",
	}
	notes := strings.Join(res.Notes, "\n")
	for _, w := range want {
		if !strings.Contains(notes, w) {
			t.Errorf("no note %q in\n%s", w, notes)
		}
	}
}
