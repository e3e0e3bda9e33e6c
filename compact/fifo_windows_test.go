package compact

import "testing"

// makeFIFO skips: Windows has no named pipes in the file system.
func makeFIFO(t *testing.T, _ string) {
	t.Helper()
	t.Skip("no named pipes in the file system on Windows")
}
