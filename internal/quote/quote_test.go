package quote

import "testing"

func TestIfNeeded(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain path", "beacon/memory/2026-11-20.md", "beacon/memory/2026-11-20.md"},
		{"spaces and letters beyond ASCII", "Notes für Qüill/ä b.md", "Notes für Qüill/ä b.md"},
		{"empty", "", ""},
		{"NUL byte", "a\x00b.md", `"a\x00b.md"`},
		{"line break", "a.md\nfake: line", `"a.md\nfake: line"`},
		{"terminal escape", "a\x1b[31m.md", `"a\x1b[31m.md"`},
		{"tab", "a\tb", `"a\tb"`},
		{"invalid UTF-8", "a\xffb", `"a\xffb"`},
		{"a space that is not a plain one", "a\u00a0b", `"a\u00a0b"`},
		{"right-to-left override", "a\u202eb", `"a\u202eb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IfNeeded(tt.in); got != tt.want {
				t.Errorf("IfNeeded(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}
