//go:build unix

package layout

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestTeammateFolderLinks: a link in the workspace folder to a teammate's
// folder is no second teammate, so one memory is listed, indexed and
// compacted once; doctor names the link and its target, and using the
// link's name says which name to use.
func TestTeammateFolderLinks(t *testing.T) {
	tests := []struct {
		name      string
		links     map[string]string // link name: target, relative to the root
		want      []string
		wantFound []string
		wantWhy   map[string]string
	}{
		{
			name:      "a link to a teammate's folder",
			links:     map[string]string{"alias": "beacon"},
			want:      []string{"atlas", "beacon"},
			wantFound: []string{`alias: warning: symlink to beacon, the folder of teammate "beacon": one folder is one teammate, so tmem skips this name; remove the link`},
			wantWhy:   map[string]string{"alias": `teammate "alias" cannot be used: alias is a symlink to beacon, the folder of teammate "beacon": use that name`},
		},
		{
			name:      "a link that sorts before its target",
			links:     map[string]string{"aaa": "./atlas/"},
			want:      []string{"atlas", "beacon"},
			wantFound: []string{`aaa: warning: symlink to atlas, the folder of teammate "atlas": one folder is one teammate, so tmem skips this name; remove the link`},
			wantWhy:   map[string]string{"aaa": `teammate "aaa" cannot be used: aaa is a symlink to atlas, the folder of teammate "atlas": use that name`},
		},
		{
			name:      "two links to a folder that is no teammate's",
			links:     map[string]string{"cedar": "Shared/c", "dune": "Shared/c"},
			want:      []string{"atlas", "beacon", "cedar"},
			wantFound: []string{`dune: warning: symlink to cedar, the folder of teammate "cedar": one folder is one teammate, so tmem skips this name; remove the link`},
			wantWhy:   map[string]string{"dune": `teammate "dune" cannot be used: dune is a symlink to cedar, the folder of teammate "cedar": use that name`},
		},
		{
			name:  "a link to a folder of its own",
			links: map[string]string{"cedar": "Shared/c"},
			want:  []string{"atlas", "beacon", "cedar"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), DirName)
			for _, name := range []string{"atlas", "beacon", "Shared/c"} {
				writeSoul(t, root, name, "role: x\n")
			}
			for name, to := range tt.links {
				if err := os.Symlink(to, filepath.Join(root, name)); err != nil {
					t.Fatal(err)
				}
			}
			ws := &Workspace{Root: root}
			if got := teammateNames(t, ws); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Teammates = %v, want %v", got, tt.want)
			}
			if got := linkFindings(t, ws); !reflect.DeepEqual(got, tt.wantFound) {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.wantFound, "\n"))
			}
			for name, want := range tt.wantWhy {
				_, err := ws.Teammate(name)
				var ue *UnknownTeammateError
				if !errors.As(err, &ue) || err.Error() != want {
					t.Errorf("Teammate(%q) = %v, want %s", name, err, want)
				}
			}
		})
	}
}

func teammateNames(t *testing.T, ws *Workspace) []string {
	t.Helper()
	mates, err := ws.Teammates()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range mates {
		names = append(names, m.Name)
	}
	return names
}

// linkFindings returns doctor's findings about symlinks, as printed.
func linkFindings(t *testing.T, ws *Workspace) []string {
	t.Helper()
	findings, err := ws.Check()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range findings {
		if strings.Contains(f.Message, "symlink") {
			out = append(out, f.String())
		}
	}
	return out
}
