package compact

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout"
)

// trustedEnv is an environment whose trust store, in a folder of the
// test's own, allows the workspace's settings as they are now.
func trustedEnv(t *testing.T, ws *layout.Workspace, cfg Config, getenv func(string) string) SummarizerEnv {
	t.Helper()
	store := TrustStore{Dir: t.TempDir()}
	if err := store.Allow(ConfigPath(ws), cfg.ReachIn(ws).Digest()); err != nil {
		t.Fatal(err)
	}
	return SummarizerEnv{Getenv: getenv, Trust: store}
}

const trustYAML = `compact:
  summarizer: command
  command: [sh, -c, 'cat >/dev/null; echo "# Week"']
  weekly_budget: 1500
  openai:
    base_url: http://127.0.0.1:9/v1
    model: m
    api_key_env: MY_KEY
`

// TestTrustGuardsProgramsAndEndpoints: the command and openai
// summarizers are built only when the user of the machine allowed the
// program and endpoint the workspace's settings name, as they are; any
// change to what they reach asks again, other settings do not.
func TestTrustGuardsProgramsAndEndpoints(t *testing.T) {
	getenv := func(string) string { return "secret" }
	tests := []struct {
		name      string
		trustedAs string // the settings allowed ("" none)
		yaml      string // the settings when the summarizer is built
		flag      string
		dryRun    bool
		revoke    bool
		wantLine  int // of the refusal; 0 means built
	}{
		{name: "not trusted", yaml: trustYAML, wantLine: 3},
		{name: "trusted as they are", trustedAs: trustYAML, yaml: trustYAML},
		{name: "another program since", trustedAs: trustYAML, yaml: strings.Replace(trustYAML, `echo "# Week"`, `rm -rf ~`, 1), wantLine: 3},
		{name: "another key variable since", trustedAs: trustYAML, yaml: strings.Replace(trustYAML, "MY_KEY", "AWS_SECRET_ACCESS_KEY", 1), wantLine: 3},
		{name: "another endpoint, for openai", trustedAs: trustYAML, yaml: strings.Replace(trustYAML, "127.0.0.1:9", "203.0.113.7", 1), flag: "openai", wantLine: 5},
		{name: "a budget changed since", trustedAs: trustYAML, yaml: strings.Replace(trustYAML, "1500", "900", 1)},
		{name: "trust taken back", trustedAs: trustYAML, yaml: trustYAML, revoke: true, wantLine: 3},
		{name: "a dry run runs nothing", yaml: trustYAML, dryRun: true},
		{name: "extractive needs nothing", yaml: trustYAML, flag: "extractive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fromTxtar(t, "-- beacon/SOUL.md --\n# Beacon\n-- tmem.yaml --\n"+tt.yaml)
			store := TrustStore{Dir: filepath.Join(t.TempDir(), "tmem")}
			if tt.trustedAs != "" {
				before := fromTxtar(t, "-- tmem.yaml --\n"+tt.trustedAs)
				cfg, err := LoadConfig(before)
				if err != nil {
					t.Fatal(err)
				}
				if err := store.Allow(ConfigPath(ws), cfg.Reach().Digest()); err != nil {
					t.Fatal(err)
				}
			}
			if tt.revoke {
				if had, err := store.Revoke(ConfigPath(ws)); err != nil || !had {
					t.Fatalf("Revoke = %v, %v", had, err)
				}
			}
			cfg, err := LoadConfig(ws)
			if err != nil {
				t.Fatal(err)
			}
			s, err := cfg.NewSummarizer(tt.flag, ws, SummarizerEnv{Getenv: getenv, Trust: store, DryRun: tt.dryRun})
			var ue *UntrustedError
			switch {
			case tt.wantLine == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.wantLine == 0 && s == nil:
				t.Fatal("no summarizer")
			case tt.wantLine != 0 && !errors.As(err, &ue):
				t.Fatalf("err = %v, want an *UntrustedError", err)
			case tt.wantLine != 0 && (ue.Line != tt.wantLine || !strings.HasPrefix(err.Error(), "tmem.yaml:")):
				t.Errorf("refusal %q at line %d, want line %d", err, ue.Line, tt.wantLine)
			}
		})
	}
}

// TestNoTrustStoreTrustsNothing: without a store (nil Trust, or one with
// no folder) the settings are refused, not run.
func TestNoTrustStoreTrustsNothing(t *testing.T) {
	ws := fromTxtar(t, "-- tmem.yaml --\n"+trustYAML)
	cfg, err := LoadConfig(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, trust := range []Trust{nil, TrustStore{}} {
		var ue *UntrustedError
		if _, err := cfg.NewSummarizer("", ws, SummarizerEnv{Trust: trust}); !errors.As(err, &ue) {
			t.Errorf("trust %#v: err = %v, want an *UntrustedError", trust, err)
		}
	}
}

// TestTrustStore: what is allowed stays allowed for other processes (a
// store read afresh), per file and digest; a store's file that is not
// its JSON, or not a regular file, is an error naming it, never a hang.
func TestTrustStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config", "tmem")
	if ok, err := (TrustStore{Dir: dir}).Trusted("/w/.teammates/tmem.yaml", "d1"); ok || err != nil {
		t.Fatalf("empty store: %v, %v", ok, err)
	}
	if err := (TrustStore{Dir: dir}).Allow("/w/.teammates/tmem.yaml", "d1"); err != nil {
		t.Fatal(err)
	}
	if err := (TrustStore{Dir: dir}).Allow("/v/.teammates/tmem.yaml", "d2"); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		path, digest string
		want         bool
	}{
		{"/w/.teammates/tmem.yaml", "d1", true},
		{"/w/.teammates/tmem.yaml", "d2", false},
		{"/v/.teammates/tmem.yaml", "d2", true},
		{"/u/.teammates/tmem.yaml", "d1", false},
	}
	for _, c := range checks {
		if ok, err := (TrustStore{Dir: dir}).Trusted(c.path, c.digest); ok != c.want || err != nil {
			t.Errorf("Trusted(%s, %s) = %v, %v; want %v", c.path, c.digest, ok, err, c.want)
		}
	}
	if had, err := (TrustStore{Dir: dir}).Revoke("/u/.teammates/tmem.yaml"); had || err != nil {
		t.Errorf("Revoke of a file never trusted = %v, %v", had, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("store folder: %v, %v; want mode 0700", fi, err)
	}

	file := filepath.Join(dir, trustFile)
	if err := os.WriteFile(file, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (TrustStore{Dir: dir}).Trusted("/w/.teammates/tmem.yaml", "d1"); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("damaged store: err = %v, want one naming %s", err, file)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	makeFIFO(t, file)
	if _, err := (TrustStore{Dir: dir}).Trusted("/w/.teammates/tmem.yaml", "d1"); !errors.Is(err, layout.ErrNotRegular) {
		t.Errorf("a pipe as the store: err = %v, want ErrNotRegular", err)
	}
}

// TestConfigPathThroughLinks: a workspace reached through a link is
// trusted under the path it resolves to, so trusting it one way trusts
// it the other.
func TestConfigPathThroughLinks(t *testing.T) {
	ws := fromTxtar(t, "-- tmem.yaml --\n"+trustYAML)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Dir(ws.Root), link); err != nil {
		t.Skipf("no links here: %v", err)
	}
	via, err := layout.Open(link)
	if err != nil {
		t.Fatal(err)
	}
	if via.Root == ws.Root {
		t.Fatalf("opened through the link as %s, not through it", via.Root)
	}
	if a, b := ConfigPath(ws), ConfigPath(via); a != b {
		t.Errorf("ConfigPath = %s directly, %s through a link", a, b)
	}
}

// TestCheckTrust: doctor warns, with the line, of a configured program
// the machine has not trusted, and is quiet once it is, or when the
// configured summarizer is extractive.
func TestCheckTrust(t *testing.T) {
	ws := fromTxtar(t, "-- tmem.yaml --\n"+trustYAML)
	store := TrustStore{Dir: t.TempDir()}
	fs := CheckTrust(ws, store)
	if len(fs) != 1 || fs[0].Line != 3 || fs[0].Severity != layout.SevWarning || !strings.Contains(fs[0].Message, `compact.command runs ["sh", "-c",`) {
		t.Fatalf("findings %v, want one warning at line 3 naming the program", fs)
	}
	cfg, err := LoadConfig(ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Allow(ConfigPath(ws), cfg.Reach().Digest()); err != nil {
		t.Fatal(err)
	}
	if fs := CheckTrust(ws, store); len(fs) != 0 {
		t.Errorf("trusted: findings %v", fs)
	}
	quiet := fromTxtar(t, "-- tmem.yaml --\n"+strings.Replace(trustYAML, "summarizer: command", "summarizer: extractive", 1))
	if fs := CheckTrust(quiet, TrustStore{}); len(fs) != 0 {
		t.Errorf("extractive: findings %v", fs)
	}
}

// TestTrustCoversScriptsInTheProject: a command that runs a script of the
// repository ([sh, .teammates/sum.sh]) is trusted with the script as it
// is: a commit that changes the script asks again, as one that changes
// tmem.yaml does. The command runs in the project folder, so the
// relative path names the same script whatever folder tmem runs in.
func TestTrustCoversScriptsInTheProject(t *testing.T) {
	ws := fromTxtar(t, "-- beacon/SOUL.md --\n# Beacon\n-- tmem.yaml --\ncompact:\n  summarizer: command\n  command: [sh, .teammates/sum.sh]\n"+
		"-- sum.sh --\ncat >/dev/null; echo '# Week'; echo '- summarised by the script'\n")
	cfg, err := LoadConfig(ws)
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.ReachIn(ws)
	if len(r.Files) != 1 || r.Files[".teammates/sum.sh"] == "" || !strings.Contains(r.String(), ".teammates/sum.sh as they are now") {
		t.Fatalf("reach %+v (%s), want the script's content in it", r, r)
	}
	store := TrustStore{Dir: t.TempDir()}
	if err := store.Allow(ConfigPath(ws), r.Digest()); err != nil {
		t.Fatal(err)
	}
	env := SummarizerEnv{Getenv: func(string) string { return "" }, Trust: store}
	s, err := cfg.NewSummarizer("", ws, env)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Summarize(t.Context(), Request{Kind: KindWeekly, Teammate: "beacon", Unit: "2026-W11", Sources: []Source{{Path: "x", Label: "x", Text: "- a"}}})
	if err != nil || !strings.Contains(out, "summarised by the script") {
		t.Fatalf("Summarize = %q, %v; want the script's answer", out, err)
	}
	if err := os.WriteFile(ws.Abs("sum.sh"), []byte("cat >/dev/null; touch pwned; echo '# Week'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ue *UntrustedError
	if _, err := cfg.NewSummarizer("", ws, env); !errors.As(err, &ue) {
		t.Errorf("after the script changed: %v, want it untrusted", err)
	}
}

// TestTrustCoversLinksOutOfTheProject: a script named by the command that
// is a link in the project to a file outside it is trusted by where it
// leads: a commit that points it elsewhere changes the reach.
func TestTrustCoversLinksOutOfTheProject(t *testing.T) {
	project, outside := t.TempDir(), t.TempDir()
	for _, name := range []string{"a.sh", "b.sh"} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte("echo "+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(project, "sum.sh")
	reach := func(target string) map[string]string {
		t.Helper()
		os.Remove(link)
		if err := os.Symlink(filepath.Join(outside, target), link); err != nil {
			t.Fatal(err)
		}
		return namedFiles(project, []string{"sh", "sum.sh"})
	}
	a, b := reach("a.sh"), reach("b.sh")
	if len(a) != 1 || !strings.HasPrefix(a["sum.sh"], "link to ") || a["sum.sh"] == b["sum.sh"] {
		t.Errorf("reach through the link: %v, then %v; want where it leads, differing", a, b)
	}
}
