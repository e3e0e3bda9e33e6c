package minilm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

// testManifest pins two small files served by a fake hub.
func testManifest(files map[string][]byte) Manifest {
	m := Manifest{Repo: "owner/model", Revision: "abc123"}
	for _, name := range []string{"config.json", "model.onnx"} {
		sum := sha256.Sum256(files[name])
		path := name
		if name == "model.onnx" {
			path = "onnx/model.onnx"
		}
		m.Files = append(m.Files, File{Name: name, Path: path, Size: int64(len(files[name])), SHA256: hex.EncodeToString(sum[:])})
	}
	return m
}

func testFiles() map[string][]byte {
	return map[string][]byte{
		"config.json": []byte(`{"hidden_size": 4}`),
		"model.onnx":  bytes.Repeat([]byte("0123456789abcdef"), 1<<16+3), // just over 1 MiB
	}
}

// fakeHub serves files at /owner/model/resolve/abc123/PATH.
type fakeHub struct {
	prefix   string // URL path before the file's path
	mu       sync.Mutex
	body     map[string][]byte // by upstream path
	truncate map[string]int    // serve only this many bytes, then cut the connection
	ranges   []string          // Range headers seen
	noRange  bool              // ignore Range headers
	chunked  bool              // send no Content-Length
	requests int
}

func (h *fakeHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests++
	path := strings.TrimPrefix(r.URL.Path, h.prefix)
	b, ok := h.body[path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	start := 0
	if rg := r.Header.Get("Range"); rg != "" {
		h.ranges = append(h.ranges, rg)
		if !h.noRange {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
			if err != nil || n >= len(b) {
				w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", len(b)))
				w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
				return
			}
			start = n
		}
	}
	if !h.chunked {
		w.Header().Set("Content-Length", strconv.Itoa(len(b)-start))
	}
	if start > 0 {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(b)-1, len(b)))
		w.WriteHeader(http.StatusPartialContent)
	}
	if h.chunked {
		w.(http.Flusher).Flush()
	}
	if cut, ok := h.truncate[path]; ok && cut < len(b)-start {
		w.Write(b[start : start+cut])
		panic(http.ErrAbortHandler)
	}
	w.Write(b[start:])
}

func newHub(t *testing.T, files map[string][]byte) (*fakeHub, *httptest.Server) {
	t.Helper()
	h := &fakeHub{prefix: "/owner/model/resolve/abc123/", body: map[string][]byte{"config.json": files["config.json"], "onnx/model.onnx": files["model.onnx"]}, truncate: map[string]int{}}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv
}

func TestPull(t *testing.T) {
	good := testFiles()
	m := testManifest(good)
	tests := []struct {
		name     string
		serve    func(h *fakeHub)
		prepare  func(t *testing.T, dir string)
		wantErr  string
		wantPart bool // a .part file is left for resuming
		wantOK   bool
		wantRng  string
		wantLine string // in the progress output; default "model.onnx: ok"
	}{
		{name: "good files", wantOK: true},
		{
			name: "bad checksum",
			serve: func(h *fakeHub) {
				b := bytes.Clone(h.body["onnx/model.onnx"])
				b[100] ^= 1
				h.body["onnx/model.onnx"] = b
			},
			wantErr: "sha256 mismatch",
		},
		{
			name:     "truncated by the server",
			serve:    func(h *fakeHub) { h.truncate["onnx/model.onnx"] = 5000 },
			wantErr:  "interrupted",
			wantPart: true,
		},
		{
			name:    "too short at the source",
			serve:   func(h *fakeHub) { h.body["onnx/model.onnx"] = h.body["onnx/model.onnx"][:1000] },
			wantErr: "not the pinned file: the server's file is 1000 bytes, the pinned one 1048624",
		},
		{
			name: "too short at the source, length not sent",
			serve: func(h *fakeHub) {
				h.body["onnx/model.onnx"] = h.body["onnx/model.onnx"][:1000]
				h.chunked = true
			},
			wantErr: "not the pinned file: the server's file ended at 1000 bytes, the pinned one has 1048624",
		},
		{
			name:  "complete but wrong partial file",
			serve: func(h *fakeHub) { h.body["onnx/model.onnx"] = h.body["onnx/model.onnx"][:1000] },
			prepare: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "model.onnx.part"), string(good["model.onnx"][:1000]))
			},
			wantErr: "the server's file is 1000 bytes",
			wantRng: "bytes=1000-",
		},
		{
			name:    "longer at the source",
			serve:   func(h *fakeHub) { h.body["onnx/model.onnx"] = append(bytes.Clone(h.body["onnx/model.onnx"]), 'x') },
			wantErr: "the server's file is 1048625 bytes, the pinned one 1048624",
		},
		{
			name:    "missing at the source",
			serve:   func(h *fakeHub) { delete(h.body, "onnx/model.onnx") },
			wantErr: "download failed: GET",
		},
		{
			name: "resumed download",
			prepare: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "model.onnx.part"), string(good["model.onnx"][:7777]))
			},
			wantOK:  true,
			wantRng: "bytes=7777-",
		},
		{
			name:  "server ignores range",
			serve: func(h *fakeHub) { h.noRange = true },
			prepare: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "model.onnx.part"), string(good["model.onnx"][:7777]))
			},
			wantOK:  true,
			wantRng: "bytes=7777-",
		},
		{
			name: "wrong partial file is not trusted",
			prepare: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "model.onnx.part"), strings.Repeat("x", 7777))
			},
			wantErr: "sha256 mismatch",
		},
		{
			name: "existing good file is kept",
			prepare: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "model.onnx"), string(good["model.onnx"]))
			},
			wantOK:   true,
			wantLine: "model.onnx: already present",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, srv := newHub(t, good)
			if tt.serve != nil {
				tt.serve(h)
			}
			dir := t.TempDir()
			if tt.prepare != nil {
				tt.prepare(t, dir)
			}
			var progress bytes.Buffer
			err := Pull(context.Background(), PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, Progress: &progress, HTTPClient: srv.Client()})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
				}
				if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err == nil {
					t.Error("a bad model.onnx was left in place")
				}
				_, err := os.Stat(filepath.Join(dir, "model.onnx.part"))
				if (err == nil) != tt.wantPart {
					t.Errorf(".part left = %v, want %v", err == nil, tt.wantPart)
				}
				if tt.wantRng != "" && (len(h.ranges) == 0 || h.ranges[0] != tt.wantRng) {
					t.Errorf("ranges = %v, want %s", h.ranges, tt.wantRng)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			requireComplete(t, m, dir)
			if _, err := os.Stat(filepath.Join(dir, "model.onnx.part")); err == nil {
				t.Error(".part left after success")
			}
			if tt.wantRng != "" && (len(h.ranges) == 0 || h.ranges[0] != tt.wantRng) {
				t.Errorf("ranges = %v, want %s", h.ranges, tt.wantRng)
			}
			line := tt.wantLine
			if line == "" {
				line = "model.onnx: ok"
			}
			if !strings.Contains(progress.String(), line) {
				t.Errorf("progress lacks the final line:\n%s", progress.String())
			}
		})
	}
}

func TestPullResumesAfterTruncation(t *testing.T) {
	good := testFiles()
	m := testManifest(good)
	h, srv := newHub(t, good)
	h.truncate["onnx/model.onnx"] = 300000
	dir := t.TempDir()
	opts := PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, HTTPClient: srv.Client()}
	if err := Pull(context.Background(), opts); err == nil {
		t.Fatal("first pull should fail")
	}
	h.mu.Lock()
	delete(h.truncate, "onnx/model.onnx")
	h.mu.Unlock()
	if err := Pull(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if len(h.ranges) != 1 || h.ranges[0] != "bytes=300000-" {
		t.Errorf("ranges = %v, want one resume at 300000", h.ranges)
	}
	if err := verifyFile(filepath.Join(dir, "model.onnx"), m.Files[1]); err != nil {
		t.Error(err)
	}
}

// TestPullRecoversFromWrongPart: a partial file that already holds all of
// a wrong server file (so a resume gets 416) must not block later pulls.
func TestPullRecoversFromWrongPart(t *testing.T) {
	good := testFiles()
	m := testManifest(good)
	h, srv := newHub(t, good)
	h.body["onnx/model.onnx"] = good["model.onnx"][:4096]
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "model.onnx.part"), string(good["model.onnx"][:4096]))
	opts := PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, HTTPClient: srv.Client()}
	err := Pull(context.Background(), opts)
	if !errors.Is(err, ErrWrongFile) {
		t.Fatalf("first pull: %v, want ErrWrongFile", err)
	}
	h.mu.Lock()
	h.body["onnx/model.onnx"] = good["model.onnx"]
	h.mu.Unlock()
	if err := Pull(context.Background(), opts); err != nil {
		t.Fatalf("second pull, with the right file served: %v", err)
	}
	requireComplete(t, m, dir)
}

// TestPullUnreachable: with no hub to reach, Pull says so (ErrDownload) and
// leaves no empty model folder behind, nor the parents it created.
func TestPullUnreachable(t *testing.T) {
	m := testManifest(testFiles())
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	root := t.TempDir()
	dir := filepath.Join(root, "cache", "tmem", "models", "m")
	err := Pull(context.Background(), PullOptions{BaseURL: url, Dir: dir, Manifest: &m})
	if !errors.Is(err, ErrDownload) {
		t.Fatalf("err = %v, want ErrDownload", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "pull config.json: download failed: ") || !strings.Contains(msg, url+"/owner/model/resolve/abc123/config.json") {
		t.Errorf("err = %q does not say what failed", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "cache")); !os.IsNotExist(err) {
		t.Errorf("created folders left behind: %v", err)
	}
	if _, err := os.Stat(root); err != nil {
		t.Errorf("a folder that existed before was removed: %v", err)
	}
}

func TestInstall(t *testing.T) {
	good := testFiles()
	m := testManifest(good)
	tests := []struct {
		name    string
		files   map[string]string // relative path -> content
		wantErr string
	}{
		{"flat folder", map[string]string{"config.json": string(good["config.json"]), "model.onnx": string(good["model.onnx"])}, ""},
		{"upstream layout", map[string]string{"config.json": string(good["config.json"]), "onnx/model.onnx": string(good["model.onnx"])}, ""},
		{"bad file", map[string]string{"config.json": `{"hidden_size": 5}`, "model.onnx": string(good["model.onnx"])}, "sha256"},
		{"truncated file", map[string]string{"config.json": string(good["config.json"]), "model.onnx": string(good["model.onnx"][:10])}, "truncated"},
		{"missing file", map[string]string{"config.json": string(good["config.json"])}, "model.onnx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := t.TempDir()
			for rel, content := range tt.files {
				p := filepath.Join(from, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				writeFile(t, p, content)
			}
			dir := filepath.Join(t.TempDir(), "model")
			err := m.Install(from, dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
				}
				if entries, _ := os.ReadDir(dir); len(entries) > 0 {
					t.Errorf("files installed despite the error: %v", entries)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			requireComplete(t, m, dir)
		})
	}
}

func TestInfo(t *testing.T) {
	good := testFiles()
	m := testManifest(good)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "config.json"), `{"hidden_size": 9}`)
	info, err := m.Info(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info.Complete || info.Identity != "" {
		t.Fatalf("complete %v identity %q for a broken folder", info.Complete, info.Identity)
	}
	if f := info.Files[0]; !f.Present || f.OK {
		t.Errorf("config.json: %+v, want present and not ok", f)
	}
	if f := info.Files[1]; f.Present {
		t.Errorf("model.onnx: %+v, want missing", f)
	}
}

func TestPinnedMatchesCommittedFiles(t *testing.T) {
	// testdata/pinned holds byte copies of the upstream files other than
	// model.onnx; testdata/tiny shares the tokenizer files but has its own
	// config.json (it describes the tiny model).
	for _, f := range Pinned.Files {
		if f.Name == "model.onnx" {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			if err := verifyFile(filepath.Join(minilmtest.PinnedDir(), f.Name), f); err != nil {
				t.Error(err)
			}
			if f.Name == "config.json" {
				return
			}
			if err := verifyFile(filepath.Join(tinyDir, f.Name), f); err != nil {
				t.Error(err)
			}
		})
	}
}

// requireComplete fails the test unless dir holds every file of m, intact.
func requireComplete(t *testing.T, m Manifest, dir string) {
	t.Helper()
	info, err := m.Info(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Complete {
		t.Errorf("model folder not complete: %+v", info.Files)
	}
}

// TestPullGivesUpOnAStalledServer: a server that never answers, or stops
// sending halfway, fails the pull after the idle timeout (not never), and
// what arrived stays for the next pull to resume.
func TestPullGivesUpOnAStalledServer(t *testing.T) {
	m := testManifest(testFiles())
	tests := []struct {
		name     string
		sent     int // bytes of config.json sent before the stall; -1: no answer at all
		wantPart int64
	}{
		{"no answer", -1, -1},
		{"a few bytes of the body, then nothing", 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.sent >= 0 {
					w.Header().Set("Content-Length", strconv.FormatInt(m.Files[0].Size, 10))
					w.Write(testFiles()["config.json"][:tt.sent])
					w.(http.Flusher).Flush()
				}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			defer close(release)
			dir := t.TempDir()
			err := Pull(context.Background(), PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, HTTPClient: srv.Client(), IdleTimeout: 200 * time.Millisecond})
			if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "the server sent nothing for 200ms") {
				t.Fatalf("Pull: %v, want a stall error", err)
			}
			fi, err := os.Stat(filepath.Join(dir, "config.json.part"))
			switch {
			case tt.wantPart < 0 && err == nil:
				t.Errorf("a partial file was left with nothing in it")
			case tt.wantPart >= 0 && (err != nil || fi.Size() != tt.wantPart):
				t.Errorf("partial file: %v, want %d bytes kept for the resume", err, tt.wantPart)
			}
		})
	}
}

// TestPullWaitsForASlowServer: a server that keeps sending, however
// slowly, is never cut off by the idle timeout (the speed limit's window,
// a minute, outlasts this download).
func TestPullWaitsForASlowServer(t *testing.T) {
	files := testFiles()
	files["model.onnx"] = []byte("small")
	m := testManifest(files)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := files["config.json"]
		if strings.HasSuffix(r.URL.Path, "model.onnx") {
			b = files["model.onnx"]
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		for i := range b {
			w.Write(b[i : i+1])
			w.(http.Flusher).Flush()
			time.Sleep(40 * time.Millisecond)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	// config.json takes about 0.7 s in all, over three times the timeout.
	if err := Pull(context.Background(), PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, HTTPClient: srv.Client(), IdleTimeout: 200 * time.Millisecond}); err != nil {
		t.Fatalf("Pull from a slow, steady server: %v", err)
	}
	requireComplete(t, m, dir)
}
