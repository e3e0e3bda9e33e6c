package serve

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestScope(t *testing.T) {
	worker := scope{teammate: "beacon"}
	lead := scope{teammate: "atlas", lead: true}
	operator := scope{}
	tests := []struct {
		name      string
		sc        scope
		teammate  string
		read, wrt bool
	}{
		{"worker reads its own", worker, "beacon", true, true},
		{"worker reads another", worker, "quill", false, false},
		{"lead reads another", lead, "quill", true, false},
		{"lead writes its own", lead, "atlas", true, true},
		{"operator reads and writes anyone", operator, "quill", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.sc.canRead(tt.teammate); (err == nil) != tt.read || (err != nil && !errors.Is(err, errRefused)) {
				t.Errorf("canRead(%s) = %v, want allowed=%v", tt.teammate, err, tt.read)
			}
			if err := tt.sc.canWrite(tt.teammate); (err == nil) != tt.wrt {
				t.Errorf("canWrite(%s) = %v, want allowed=%v", tt.teammate, err, tt.wrt)
			}
		})
	}
	if got, _ := worker.searchable(nil); len(got) != 1 || got[0] != "beacon" {
		t.Errorf("a worker searches %v by default, want its own memory", got)
	}
	if got, _ := lead.searchable(nil); got != nil {
		t.Errorf("a lead searches %v by default, want everyone", got)
	}
	if _, err := operator.pick(""); err == nil {
		t.Error("an unbound session picked a teammate nobody named")
	}
	for _, bad := range []string{"", "Beacon", "../quill"} {
		_, err := worker.searchable([]string{bad})
		if err == nil || errors.Is(err, errRefused) || !strings.Contains(err.Error(), "teammate name") {
			t.Errorf("searchable(%q) = %v, want the name refused as a name", bad, err)
		}
	}
}

func TestFreshness(t *testing.T) {
	day := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	f := newFreshness()
	steps := []struct {
		name      string
		do        func()
		teammates []string
		now       time.Time
		clean     bool
	}{
		{"not watching: always sync", func() {}, []string{"beacon"}, day, false},
		{"watching, never synced", func() { f.setWatching(true) }, []string{"beacon"}, day, false},
		{"synced, nothing changed", func() { k, g, _ := f.check([]string{"beacon"}, day); f.synced(k, g) }, []string{"beacon"}, day, true},
		{"another set of teammates", func() {}, []string{"beacon", "quill"}, day, false},
		{"a new day", func() {}, []string{"beacon"}, day.AddDate(0, 0, 1), false},
		{"a change", f.changed, []string{"beacon"}, day, false},
		{"a change during the sync", func() {
			k, g, _ := f.check([]string{"beacon"}, day)
			f.changed()
			f.synced(k, g)
		}, []string{"beacon"}, day, false},
		{"watching stopped", func() {
			k, g, _ := f.check([]string{"beacon"}, day)
			f.synced(k, g)
			f.setWatching(false)
		}, []string{"beacon"}, day, false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.do()
			if _, _, clean := f.check(st.teammates, st.now); clean != st.clean {
				t.Errorf("clean = %v, want %v", clean, st.clean)
			}
		})
	}
}
