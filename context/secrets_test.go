package context

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/recall"
)

func TestBuildRedactsSecrets(t *testing.T) {
	// Split so that the repository holds no secret.
	token := "ghp_" + "zQWBuTSOoRi4A9spHcVY5ncnsDkxkJ" + "0mLq17"
	keyID := "AKIA" + "Z7QRSTUVWXY2345A"
	pw := "Xk9#mQ2$" + "vL7pZr"
	now := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	ws := writeFiles(t, map[string]string{
		"beacon/SOUL.md":   "---\nrole: Search engineer\n---\n\n# Beacon\n\nDeploys with GITHUB_TOKEN=" + token + "\n",
		"beacon/GOALS.md":  "# Goals\n\n- ship\n",
		"beacon/WISDOM.md": "# Wisdom\n\n## Keys\n\nNever paste keys like " + keyID + ".\n",
		"quill/SOUL.md":    "---\nrole: \"Frontend, password: " + pw + "\"\n---\n# Quill\n",
		"beacon/memory/2026-11-20.md": "# 2026-11-20\n\n## Deploy " + keyID + "\n\n" +
			"Pushed the kestrel release.\n\nThe db password: " + pw + "\n",
		"beacon/memory/2026-11-18.md":        "# 2026-11-18\n\n## Kestrel\n\nkestrel fine\n",
		"beacon/memory/reference_kestrel.md": "---\nname: Kestrel " + keyID + "\ndescription: d\ntype: reference\n---\n\n## Access\n\nkestrel uses " + token + "\n",
	})
	rec := &fakeRecaller{ws: ws, now: now, extra: []recall.Hit{{
		Teammate: "beacon", Path: "beacon/memory/2025-01-02.md", Kind: "daily", StartLine: 3, EndLine: 9,
		Heading: "Kestrel", Score: 0.5, Text: "kestrel: [REDACTED:password]", Redacted: []string{"password-assignment"},
	}}}
	res, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: "kestrel", Now: fixedClock(now),
		Tokenizer: mustTokenizer(t, Chars4), Recaller: rec})
	if err != nil {
		t.Fatal(err)
	}
	man, err := json.Marshal(res.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{token, keyID, pw} {
		if strings.Contains(res.Text, secret) || strings.Contains(string(man), secret) {
			t.Errorf("the stack or its manifest shows %s", secret)
		}
	}
	for _, want := range []string{
		"Deploys with GITHUB_TOKEN=[REDACTED:github-token]",
		"Never paste keys like [REDACTED:aws-access-key].",
		"**quill** — Frontend, password: [REDACTED:password]",
		"### Deploy [REDACTED:aws-access-key]",
		"The db password: [REDACTED:password]",
		"## Kestrel [REDACTED:aws-access-key] — Access",
		"kestrel uses [REDACTED:github-token]",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("the stack lacks %q", want)
		}
	}
	var got []string
	for _, r := range res.Manifest.Redactions {
		got = append(got, fmt.Sprintf("%s %s:%d %s", r.Section, r.Path, r.Line, r.Rule))
	}
	want := []string{
		"soul beacon/SOUL.md:7 github-pat",
		"wisdom beacon/WISDOM.md:5 aws-access-key-id",
		"dailies beacon/memory/2026-11-20.md:3 aws-access-key-id",
		"dailies beacon/memory/2026-11-20.md:7 password-assignment",
		"recall beacon/memory/reference_kestrel.md:7 aws-access-key-id",
		"recall beacon/memory/reference_kestrel.md:7 github-pat",
		"recall beacon/memory/2025-01-02.md:3 password-assignment",
		"roster quill/SOUL.md:0 password-assignment",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("manifest redactions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	noted := false
	for _, n := range res.Manifest.Notes {
		noted = noted || strings.HasPrefix(n, "8 secret(s) shown as [REDACTED:kind]: beacon/SOUL.md:7 (github-pat),")
	}
	if !noted {
		t.Errorf("no note on the redactions: %q", res.Manifest.Notes)
	}
	checkInvariants(t, res, mustTokenizer(t, Chars4))
}

func TestBuildListsOnlyRedactionsItShows(t *testing.T) {
	keyID := "AKIA" + "Z7QRSTUVWXY2345A"
	now := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	long := strings.Repeat("filler words for the budget ", 200)
	ws := writeFiles(t, map[string]string{
		"beacon/SOUL.md":              "# Beacon\n",
		"beacon/memory/2026-11-20.md": "# 2026-11-20\n\n## Today\n\n" + long + "\n",
		"beacon/memory/2026-11-17.md": "# 2026-11-17\n\n## Old\n\nkey " + keyID + "\n",
	})
	res, err := Build(context.Background(), ws, Options{Teammate: "beacon", Now: fixedClock(now),
		Budget: MinBudget, Tokenizer: mustTokenizer(t, Chars4)})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Manifest.Dailies {
		if d.Path == "beacon/memory/2026-11-17.md" && d.Decision != Dropped {
			t.Fatalf("the old entry was not dropped: %+v", d)
		}
	}
	if len(res.Manifest.Redactions) != 0 {
		t.Errorf("redactions listed for text the stack does not show: %+v", res.Manifest.Redactions)
	}
}
