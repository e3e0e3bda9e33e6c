package lazyregexp

import "testing"

func TestNew(t *testing.T) {
	re := New(`^(\d{4})-W(\d{2})\.md$`)
	first := re()
	if m := first.FindStringSubmatch("2026-W47.md"); len(m) != 3 || m[1] != "2026" || m[2] != "47" {
		t.Errorf("FindStringSubmatch = %q", m)
	}
	if re() != first {
		t.Error("a second call compiled the pattern again")
	}
}

func TestNewPanicsOnBadPattern(t *testing.T) {
	re := New(`(unclosed`)
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic on first use")
		}
	}()
	re()
}
