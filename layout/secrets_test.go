package layout

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// Secrets are split in the source so that the repository holds none.
var (
	testGitHubToken = "ghp_" + "zQWBuTSOoRi4A9spHcVY5ncnsDkxkJ" + "0mLq17"
	testAWSKeyID    = "AKIA" + "Z7QRSTUVWXY2345A"
)

func TestAppendDailyRefusesSecrets(t *testing.T) {
	day := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name, heading, text string
		want                string
	}{
		{"in the heading", "Rotated " + testAWSKeyID, "done",
			"heading: looks like an AWS access key ID (aws-access-key-id): refusing to write a secret"},
		{"in the text", "Deploy", "- pushed\n- set the CI token\n  GITHUB_TOKEN=" + testGitHubToken,
			"entry line 3: looks like a GitHub token (github-pat): refusing to write a secret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			_, err := ws.AppendDaily(context.Background(), "beacon", day, tc.heading, tc.text)
			var se *SecretError
			if !errors.As(err, &se) || err.Error() != tc.want {
				t.Fatalf("AppendDaily = %v, want %q", err, tc.want)
			}
			if _, err := os.Stat(ws.Abs(DailyPath("beacon", day))); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the daily log was written anyway (stat: %v)", err)
			}
			rel, err := ws.AppendDaily(context.Background(), "beacon", day, tc.heading, tc.text, AllowSecrets)
			if err != nil {
				t.Fatalf("AppendDaily with AllowSecrets: %v", err)
			}
			if src, _ := os.ReadFile(ws.Abs(rel)); !strings.Contains(string(src), tc.heading) {
				t.Errorf("AllowSecrets did not write the entry:\n%s", src)
			}
		})
	}
}

func TestWriteMemoryRefusesSecrets(t *testing.T) {
	ok := Memory{Type: "reference", Topic: "ci", Name: "CI access", Description: "where the CI keys live", Body: "In the vault."}
	tests := []struct {
		name string
		edit func(m *Memory)
		want string
	}{
		{"topic", func(m *Memory) { m.Topic = "token " + testGitHubToken }, "topic: looks like a GitHub token"},
		{"name", func(m *Memory) { m.Name = "Key " + testAWSKeyID }, "name: looks like an AWS access key ID"},
		{"description", func(m *Memory) { m.Description = "uses " + testGitHubToken }, "description: looks like a GitHub token"},
		{"body", func(m *Memory) { m.Body = "Vault path: ci/keys\n\naws id " + testAWSKeyID }, "memory body line 3: looks like an AWS access key ID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			m := ok
			tc.edit(&m)
			_, err := ws.WriteMemory(context.Background(), "beacon", m, ModeCreate)
			var se *SecretError
			if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("WriteMemory = %v, want %q…", err, tc.want)
			}
			files, err := ws.Files("beacon")
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Kind == KindTyped {
					t.Errorf("%s was written anyway", f.Path)
				}
			}
			if _, err := ws.WriteMemory(context.Background(), "beacon", m, ModeCreate, AllowSecrets); err != nil {
				t.Errorf("WriteMemory with AllowSecrets: %v", err)
			}
		})
	}
	t.Run("clean memory", func(t *testing.T) {
		ws := newWorkspace(t, "beacon")
		if _, err := ws.WriteMemory(context.Background(), "beacon", ok, ModeCreate); err != nil {
			t.Errorf("WriteMemory refused a memory without secrets: %v", err)
		}
	})
}

func TestCheckReportsSecrets(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	daily := "# 2026-03-14\n\n## Deploy\n\nGITHUB_TOKEN=" + testGitHubToken + "\n"
	if err := ws.WriteFile("beacon/memory/2026-03-14.md", []byte(daily)); err != nil {
		t.Fatal(err)
	}
	typed := "---\nname: AWS\ndescription: keys\ntype: reference\n---\n\nid " + testAWSKeyID + "\n"
	if err := ws.WriteFile("beacon/memory/reference_aws.md", []byte(typed)); err != nil {
		t.Fatal(err)
	}
	findings, err := ws.Check()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		if strings.Contains(f.Message, "looks like") {
			got = append(got, f.String())
		}
	}
	want := []string{
		"beacon/memory/2026-03-14.md:5: error: looks like a GitHub token (github-pat): remove it from the file (and from git history if committed) and rotate it",
		"beacon/memory/reference_aws.md:7: error: looks like an AWS access key ID (aws-access-key-id): remove it from the file (and from git history if committed) and rotate it",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Check reported\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestListRedactsSecretsInNames: a listed name shows a secret written into
// it as [REDACTED:kind], as recall and the prompt stack do, so listing
// (tmem list, and MCP's memory_list for agents) never hands it out.
func TestListRedactsSecretsInNames(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	src := "---\nname: deploy key " + testGitHubToken + "\ndescription: d\ntype: reference\n---\nIn the vault.\n"
	if err := ws.WriteFile("beacon/memory/reference_deploy.md", []byte(src)); err != nil {
		t.Fatal(err)
	}
	items, err := ws.List("beacon", KindTyped)
	if err != nil || len(items) != 1 {
		t.Fatalf("List = %v, %v", items, err)
	}
	if want := "deploy key [REDACTED:github-token]"; items[0].Name != want {
		t.Errorf("name %q, want %q", items[0].Name, want)
	}
}

// TestParseErrorsRedactSecrets: a parser's message that quotes the file
// (YAML names an unknown anchor in full) shows a secret in it as
// [REDACTED:kind], in the listing (tmem list, memory_list) and in the
// error every other reader gets (doctor, compact).
func TestParseErrorsRedactSecrets(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	src := "---\nname: n\ndescription: d\ntype: reference\nbroken: *" + testGitHubToken + "\n---\nBody.\n"
	if err := ws.WriteFile("beacon/memory/reference_anchor.md", []byte(src)); err != nil {
		t.Fatal(err)
	}
	items, err := ws.List("beacon", KindTyped)
	if err != nil || len(items) != 1 {
		t.Fatalf("List = %v, %v", items, err)
	}
	_, perr := Parse("beacon/memory/reference_anchor.md", []byte(src))
	if perr == nil {
		t.Fatal("the unknown anchor parsed")
	}
	msgs := []string{items[0].Error, perr.Error()}
	findings, err := ws.Check()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		if strings.Contains(f.Message, "anchor") {
			msgs = append(msgs, f.String())
		}
	}
	if len(msgs) != 3 {
		t.Fatalf("doctor's findings hold no anchor error: %v", findings)
	}
	for _, msg := range msgs {
		if strings.Contains(msg, testGitHubToken) || !strings.Contains(msg, "[REDACTED:github-token]") {
			t.Errorf("message %q shows the token, or not its marker", msg)
		}
	}
}
