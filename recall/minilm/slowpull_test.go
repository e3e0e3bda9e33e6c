package minilm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// dripServer serves model.onnx (config.json is served whole): fast bytes
// at full speed, then one byte every 20 ms, 50 B/s, until the client
// goes.
func dripServer(t *testing.T, files map[string][]byte, fast int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := files["config.json"]
		if !strings.HasSuffix(r.URL.Path, "model.onnx") {
			w.Write(b)
			return
		}
		b = files["model.onnx"]
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b[:fast])
		for i := fast; i < len(b); i++ {
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
			w.Write(b[i : i+1])
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPullGivesUpOnASlowServer: a server that keeps sending, but far
// slower than the speed limit, fails the pull at the end of a window
// although it never stalls, naming the URL and the speed it got; what
// arrived stays for the next pull to resume.
func TestPullGivesUpOnASlowServer(t *testing.T) {
	files := testFiles()
	m := testManifest(files)
	tests := []struct {
		name string
		fast int // bytes sent at full speed before the drip
	}{
		{"a byte now and then from the start", 0},
		{"a fast first window, then a byte now and then", 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := dripServer(t, files, tt.fast)
			dir := t.TempDir()
			// Without a speed limit the drip would outlast any test: the
			// deadline turns that into a failure, not a hang.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := Pull(ctx, PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, HTTPClient: srv.Client(),
				IdleTimeout: 10 * time.Second, slow: speedLimit{rate: 1 << 10, window: 200 * time.Millisecond}})
			want := "GET " + srv.URL + "/owner/model/resolve/abc123/onnx/model.onnx: too slow: "
			if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "below the minimum of 1.0 KiB/s") {
				t.Fatalf("Pull: %v, want an error with %q and the minimum speed", err, want)
			}
			fi, err := os.Stat(filepath.Join(dir, "model.onnx.part"))
			if err != nil || fi.Size() < int64(tt.fast) {
				t.Errorf("partial file: %v, want the %d bytes or more that arrived kept for the resume", err, tt.fast)
			}
		})
	}
}

// TestPullSpeedLimitPassesAFastServer: the same tight speed limit lets a
// normal server's download through.
func TestPullSpeedLimitPassesAFastServer(t *testing.T) {
	files := testFiles()
	m := testManifest(files)
	_, srv := newHub(t, files)
	dir := t.TempDir()
	err := Pull(context.Background(), PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, HTTPClient: srv.Client(),
		slow: speedLimit{rate: 1 << 10, window: 200 * time.Millisecond}})
	if err != nil {
		t.Fatalf("Pull from a fast server under a 1 KiB/s limit: %v", err)
	}
	requireComplete(t, m, dir)
}
