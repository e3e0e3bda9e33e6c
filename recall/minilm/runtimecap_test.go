package minilm

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// endless answers with the header and status head sets, then sends
// 32 KiB chunks until the client goes, or nothing when quiet.
func endless(head func(w http.ResponseWriter, r *http.Request), quiet bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		head(w, r)
		w.(http.Flusher).Flush()
		chunk := bytes.Repeat([]byte("x"), 32<<10)
		for !quiet && r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		<-r.Context().Done()
	}
}

// TestPullRuntimeRefusesAnOversizedArchive: the archive's size is not
// pinned, so a server that announces one larger than the cap is refused
// before a byte of the body is read, and an endless body fails as soon as
// it passes the cap (not once a sha256 can be taken); the error names the
// cap and nothing is kept.
func TestPullRuntimeRefusesAnOversizedArchive(t *testing.T) {
	const name = "onnxruntime-linux-x64-1.23.2.tgz"
	tests := []struct {
		name    string
		part    int // bytes of a partial archive there before
		quiet   bool
		head    func(w http.ResponseWriter, r *http.Request)
		wantMsg string
	}{
		{
			name:    "announced length above the cap",
			quiet:   true,
			head:    func(w http.ResponseWriter, _ *http.Request) { w.Header().Set("Content-Length", "1073741824") },
			wantMsg: "the server's file is 1073741824 bytes, too large: more than 1.0 MiB",
		},
		{
			name:  "resumed, the announced total above the cap",
			part:  1000,
			quiet: true,
			head: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Range", "bytes 1000-1073741823/1073741824")
				w.WriteHeader(http.StatusPartialContent)
			},
			wantMsg: "the server's file is 1073741824 bytes, too large: more than 1.0 MiB",
		},
		{
			name:    "endless body, length not sent",
			head:    func(http.ResponseWriter, *http.Request) {},
			wantMsg: "the server sent more than 1.0 MiB, too large",
		},
		{
			name: "endless body after a resume, length not sent",
			part: 1000,
			head: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Range", "bytes 1000-*/*")
				w.WriteHeader(http.StatusPartialContent)
			},
			wantMsg: "the server sent more than 1.0 MiB, too large",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(endless(tt.head, tt.quiet))
			t.Cleanup(srv.Close)
			dir := t.TempDir()
			rtDir := filepath.Join(dir, RuntimeDirName)
			if tt.part > 0 {
				writePart(t, filepath.Join(rtDir, name+".part"), tt.part)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := PullRuntime(ctx, RuntimePullOptions{BaseURL: srv.URL, Dir: dir, Platform: "linux/amd64", Pins: testRuntimePins([]byte("pinned")),
				HTTPClient: srv.Client(), IdleTimeout: 2 * time.Second, maxSize: 1 << 20})
			requirePullRuntimeFailed(t, err, ErrWrongFile, tt.wantMsg, rtDir, false, tt.part > 0)
		})
	}
}

// TestPullRuntimeDropsAPartLongerThanTheCap: a partial archive longer than
// the cap cannot be the start of the archive, so it is dropped and the
// archive fetched whole, without asking to resume past its end.
func TestPullRuntimeDropsAPartLongerThanTheCap(t *testing.T) {
	lib := bytes.Repeat([]byte("library!"), 1<<14)
	archive := runtimeTarball(t, lib)
	h, srv := newReleaseSite(t, archive)
	dir := t.TempDir()
	part := filepath.Join(dir, RuntimeDirName, "onnxruntime-linux-x64-1.23.2.tgz.part")
	writePart(t, part, 1<<20+1)
	st, err := PullRuntime(context.Background(), RuntimePullOptions{BaseURL: srv.URL, Dir: dir, Platform: "linux/amd64", Pins: testRuntimePins(archive),
		HTTPClient: srv.Client(), maxSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if h.requests != 1 || len(h.ranges) != 0 {
		t.Errorf("%d requests, ranges %v; want one request for the whole archive", h.requests, h.ranges)
	}
	requireRuntimeInstalled(t, dir, st, lib)
	if _, err := os.Stat(part); err == nil {
		t.Error("the partial archive is still there")
	}
}

// TestPullRuntimeDropsAHugePartUnread: a partial archive far longer than
// the cap is removed by its length, without reading it (a sparse terabyte
// here, which hashing would take many minutes to read).
func TestPullRuntimeDropsAHugePartUnread(t *testing.T) {
	lib := bytes.Repeat([]byte("library!"), 1<<14)
	archive := runtimeTarball(t, lib)
	_, srv := newReleaseSite(t, archive)
	dir := t.TempDir()
	part := filepath.Join(dir, RuntimeDirName, "onnxruntime-linux-x64-1.23.2.tgz.part")
	writePart(t, part, 0)
	if err := os.Truncate(part, 1<<40); err != nil {
		t.Skipf("no sparse terabyte here: %v", err)
	}
	st, err := PullRuntime(context.Background(), RuntimePullOptions{BaseURL: srv.URL, Dir: dir, Platform: "linux/amd64", Pins: testRuntimePins(archive),
		HTTPClient: srv.Client(), maxSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	requireRuntimeInstalled(t, dir, st, lib)
}

// writePart writes n bytes of a partial download at path, and its folder.
func writePart(t *testing.T, path string, n int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, strings.Repeat("p", n))
}
