package layout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitChecksEveryTemplateFirst: a template override that tmem cannot
// use stops Init with an error naming it (and its line) before anything
// is written for any teammate, so none is left half made.
func TestInitChecksEveryTemplateFirst(t *testing.T) {
	tests := []struct {
		name, file, body, wantErr string
	}{
		{"a NUL byte in SOUL.md", "SOUL.md", "# {{title}}\nx\x00y\n", "templates/SOUL.md:2: binary file: contains a NUL byte"},
		{"invalid UTF-8 in GOALS.md", "GOALS.md", "# Goals \xff\n", "templates/GOALS.md:1: invalid UTF-8 (byte 0xff at offset 8)"},
		{"WISDOM.md over the size limit", "WISDOM.md", strings.Repeat("a", MaxFileSize+1), "templates/WISDOM.md: file is 4.0 MiB, over the 4.0 MiB limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "atlas")
			write(t, filepath.Join(ws.Root, "templates", tt.file), tt.body)
			_, err := Init(ws.Root, []TeammateSpec{{Name: "beacon"}, {Name: "cedar"}})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Init = %v, want an error holding %q", err, tt.wantErr)
			}
			for _, mate := range []string{"beacon", "cedar"} {
				if _, err := os.Lstat(filepath.Join(ws.Root, mate)); !os.IsNotExist(err) {
					t.Errorf("%s was written in part: %v", mate, err)
				}
			}
		})
	}
}
