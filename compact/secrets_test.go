package compact

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	memctx "github.com/tmemhq/tmem/context"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
)

// TestSecretsNeverSpread puts a token in a daily (in a lesson, a fact
// heading and a plain sentence) and in a typed memory, compacts, and
// checks that it is in no file but the archive (where its log moved), in
// no file name, and in neither recall's nor the prompt stack's output.
func TestSecretsNeverSpread(t *testing.T) {
	token := fakeToken() // built here, so no file of the repository holds one
	ws := fromTxtar(t, "-- beacon/SOUL.md --\n# Beacon\n")
	writeFile(t, ws, "beacon/memory/2026-11-02.md", "# 2026-11-02\n\n## Rotated the deploy key\n\nThe new key is "+token+" for now.\n\n- Lesson: never paste a key like "+token+" into a log\n\n## Fact: the CI token is "+token+"\n\nIt expires in May.\n", day("2026-11-02"))
	for _, f := range []string{"feedback_keys_one.md", "feedback_keys_two.md"} {
		writeFile(t, ws, "beacon/memory/"+f, "---\nname: Keep keys out of logs "+f+"\ndescription: keys belong in the vault\ntype: feedback\n---\n\nKeep keys such as "+token+" out of logs and in the vault.\n", day("2026-06-01"))
	}
	res, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) == 0 {
		t.Error("the run did not say it left secrets out")
	}
	err = filepath.WalkDir(ws.Root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := ws.Rel(p)
		if strings.Contains(strings.ToLower(rel), strings.ToLower(token[4:12])) || strings.Contains(rel, "ghp") {
			t.Errorf("a file is named after the secret: %s", rel)
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), token) && !strings.Contains(rel, "/memory/archive/") {
			t.Errorf("%s holds the secret:\n%s", rel, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := os.ReadFile(ws.Abs("beacon/WISDOM.md"))
	if !strings.Contains(string(w), "[REDACTED:") {
		t.Errorf("WISDOM.md has no entry from the memories:\n%s", w)
	}
	now := day("2026-11-18").Add(12 * time.Hour)
	ix, err := recall.Open(ws, recall.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hits, err := ix.Search(context.Background(), recall.Query{Text: "deploy key CI token vault", K: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if strings.Contains(h.Text, token) {
			t.Errorf("recall shows the secret in %s", h.Path)
		}
	}
	stack, err := memctx.Build(context.Background(), ws, memctx.Options{Teammate: "beacon", Task: "deploy key", Now: func() time.Time { return now }, Recaller: ix})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stack.Text, token) {
		t.Error("the prompt stack shows the secret")
	}
	if n := len(paths(t, ws, "beacon", layout.KindArchive)); n == 0 {
		t.Error("nothing was archived")
	}
}

// fakeToken is a random-looking GitHub token.
func fakeToken() string {
	r := rand.New(rand.NewSource(42))
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte("ghp_")
	for i := 0; i < 36; i++ {
		b = append(b, chars[r.Intn(len(chars))])
	}
	return string(b)
}
