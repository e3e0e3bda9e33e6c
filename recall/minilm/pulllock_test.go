package minilm

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// heldServer serves files by URL path; the first request for the held
// path gets half of its body, then waits for release.
type heldServer struct {
	files   map[string][]byte
	held    string
	started chan struct{} // closed once the held request has sent half
	release chan struct{}
}

func (s *heldServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, ok := s.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.URL.Path != s.held || r.Header.Get("Range") != "" {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
		return
	}
	select {
	case <-s.started:
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
		return
	default:
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b[:len(b)/2])
	w.(http.Flusher).Flush()
	close(s.started)
	select {
	case <-s.release:
		w.Write(b[len(b)/2:])
	case <-r.Context().Done():
	}
}

// TestPullIntoAFolderAnotherPullIsFilling: while one pull writes a folder's
// partial files, a second pull or install into that folder is refused
// with an error naming the lock, instead of writing the same .part file
// (which let one of them rename a file the other was still appending to);
// the first then finishes and its files are whole.
func TestPullIntoAFolderAnotherPullIsFilling(t *testing.T) {
	files := testFiles()
	m := testManifest(files)
	archive := runtimeTarball(t, bytes.Repeat([]byte("library!"), 1<<14))
	pins := testRuntimePins(archive)
	src := t.TempDir()
	for name, b := range files {
		writeFile(t, filepath.Join(src, name), string(b))
	}
	served := map[string][]byte{
		"/owner/model/resolve/abc123/config.json":     files["config.json"],
		"/owner/model/resolve/abc123/onnx/model.onnx": files["model.onnx"],
		"/v1.23.2/" + pins["linux/amd64"].Name:        archive,
	}
	pull := func(srv *httptest.Server, dir string) error {
		return Pull(context.Background(), PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, HTTPClient: srv.Client()})
	}
	pullRuntime := func(srv *httptest.Server, dir string) error {
		_, err := PullRuntime(context.Background(), RuntimePullOptions{BaseURL: srv.URL, Dir: dir, Platform: "linux/amd64", Pins: pins, HTTPClient: srv.Client()})
		return err
	}
	tests := []struct {
		name   string
		held   string
		first  func(srv *httptest.Server, dir string) error
		second func(srv *httptest.Server, dir string) error
		lock   string // the lock file, relative to the model folder
	}{
		{"a second pull", "/owner/model/resolve/abc123/onnx/model.onnx", pull, pull, pullLockName},
		{"an install from a folder", "/owner/model/resolve/abc123/onnx/model.onnx", pull,
			func(_ *httptest.Server, dir string) error { return m.Install(src, dir) }, pullLockName},
		{"a second runtime pull", "/v1.23.2/" + pins["linux/amd64"].Name, pullRuntime, pullRuntime, filepath.Join(RuntimeDirName, pullLockName)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := &heldServer{files: served, held: tt.held, started: make(chan struct{}), release: make(chan struct{})}
			srv := httptest.NewServer(hs)
			defer srv.Close()
			dir := t.TempDir()
			first := make(chan error, 1)
			go func() { first <- tt.first(srv, dir) }()
			select {
			case <-hs.started:
			case err := <-first:
				t.Fatalf("first pull ended before its download was held: %v", err)
			case <-time.After(30 * time.Second):
				t.Fatal("first pull never reached the held download")
			}
			err := tt.second(srv, dir)
			close(hs.release)
			if !errors.Is(err, ErrPullRunning) || !strings.Contains(err.Error(), filepath.Join(dir, tt.lock)) {
				t.Errorf("second pull while the first runs: %v; want ErrPullRunning naming %s", err, tt.lock)
			}
			select {
			case err := <-first:
				if err != nil {
					t.Fatalf("first pull: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("first pull never finished")
			}
			requireWhole(t, m, dir, tt.lock != pullLockName)
		})
	}
}

// requireWhole checks the model files, or the installed runtime.
func requireWhole(t *testing.T, m Manifest, dir string, runtime bool) {
	t.Helper()
	if !runtime {
		requireComplete(t, m, dir)
		return
	}
	info, err := InstalledRuntime(dir)
	if err != nil || !info.OK {
		t.Errorf("installed runtime: %+v, %v; want it whole", info, err)
	}
}
