package recall

import (
	"context"
	"testing"
	"time"
)

// TestKeptSnapshot: an Index keeps the snapshot it searched, yet another
// writer (here a second Index, whose file locks conflict with the first's
// as another process's would) syncs without waiting for it, and the next
// search sees what that sync wrote.
func TestKeptSnapshot(t *testing.T) {
	ws := newWorkspace(t, "ws")
	reader, _ := openIndex(t, ws, Options{})
	writer, _ := openIndex(t, ws, Options{})
	q := Query{Text: "quokka ledger", Teammates: []string{"beacon"}, RecencyDepth: -1}
	if hits := runSearch(t, reader, q); len(hits) != 0 {
		t.Fatalf("before the edit: hits %v", paths(hits))
	}
	rel := "beacon/memory/project_quokka.md"
	writeFile(t, ws, rel, "---\nname: quokka\ndescription: the quokka migration ledger\ntype: project\n---\nThe quokka migration ledger lists every moved table.\n")
	done := make(chan error, 1)
	go func() {
		_, err := writer.Sync(context.Background(), []string{"beacon"})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute): // a hang guard, not a timing check
		t.Fatal("a sync waited for the snapshot another Index keeps")
	}
	q.NoSync = true
	hits := runSearch(t, reader, q)
	if len(hits) == 0 || hits[0].Path != rel {
		t.Fatalf("after another Index synced: hits %v, want %s first", paths(hits), rel)
	}
}
