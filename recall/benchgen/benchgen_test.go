package benchgen

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

func TestGenerate(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"small", Options{Teammates: 2, Years: 1, Seed: 1}},
		{"nothing compacted", Options{Teammates: 1, Years: 1, Seed: 2, Compacted: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			st, err := Generate(dir, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			ws, err := layout.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			mates, err := ws.Teammates()
			if err != nil || len(mates) != tt.opts.Teammates {
				t.Fatalf("teammates %v, %v", mates, err)
			}
			findings, err := ws.Check()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findings {
				t.Errorf("generated workspace has a finding: %s", f)
			}
			if st.Dailies == 0 || st.Typed == 0 {
				t.Errorf("stats %+v", st)
			}
			if tt.opts.Compacted < 0 && st.Weekly != 0 {
				t.Errorf("nothing compacted but %d weekly summaries", st.Weekly)
			}
			if tt.opts.Compacted == 0 && st.Weekly == 0 {
				t.Error("no weekly summaries")
			}
		})
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	opts := Options{Teammates: 1, Years: 1, Seed: 7, End: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := Generate(a, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(b, opts); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(layout.DirName, "atlas", "WISDOM.md")
	x, _ := os.ReadFile(filepath.Join(a, p))
	y, _ := os.ReadFile(filepath.Join(b, p))
	if string(x) != string(y) || len(x) == 0 {
		t.Error("two runs with one seed differ")
	}
}

func TestGenerateRefusesAnExistingWorkspace(t *testing.T) {
	dir := t.TempDir()
	soul := filepath.Join(dir, layout.DirName, "atlas", "SOUL.md")
	if err := os.MkdirAll(filepath.Dir(soul), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(soul, []byte("# Atlas — a person's own words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Teammates: 1, Years: 1, Seed: 1}
	_, err := Generate(dir, opts)
	if !errors.Is(err, layout.ErrExists) {
		t.Fatalf("err = %v, want layout.ErrExists", err)
	}
	if b, _ := os.ReadFile(soul); string(b) != "# Atlas — a person's own words\n" {
		t.Fatalf("SOUL.md was changed without Force: %q", b)
	}
	opts.Force = true
	if _, err := Generate(dir, opts); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(soul); string(b) == "# Atlas — a person's own words\n" {
		t.Fatal("Force did not write the workspace")
	}
}
