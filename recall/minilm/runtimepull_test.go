package minilm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

// runtimeTarball builds a Linux release-shaped archive around lib: the
// library as a regular file, the usual symlinks to it and a few other
// files.
func runtimeTarball(t testing.TB, lib []byte) []byte {
	t.Helper()
	return releaseTarball(t, "onnxruntime-linux-x64-1.23.2/", "libonnxruntime.so.1.23.2", lib,
		[][2]string{{"libonnxruntime.so", "libonnxruntime.so.1"}, {"libonnxruntime.so.1", "libonnxruntime.so.1.23.2"}}, "libonnxruntime_providers_shared.so")
}

// releaseTarball builds an archive shaped like ONNX Runtime's release
// archives: top holds include/, lib/ (libName holding lib, links as
// [name, target] pairs, other holding something else) and VERSION_NUMBER.
func releaseTarball(t testing.TB, top, libName string, lib []byte, links [][2]string, other string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	type entry struct {
		name, link string
		body       []byte
	}
	entries := []entry{
		{name: top},
		{name: top + "include/"},
		{name: top + "include/onnxruntime_c_api.h", body: []byte("/* header */\n")},
		{name: top + "lib/"},
	}
	for _, l := range links {
		entries = append(entries, entry{name: top + "lib/" + l[0], link: l[1]})
	}
	entries = append(entries,
		entry{name: top + "lib/" + other, body: []byte("not this one")},
		entry{name: top + "lib/" + libName, body: lib},
		entry{name: top + "VERSION_NUMBER", body: []byte("1.23.2\n")})
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: 0o755, Typeflag: tar.TypeDir}
		switch {
		case e.link != "":
			hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, e.link
		case !strings.HasSuffix(e.name, "/"):
			hdr.Typeflag, hdr.Size, hdr.Mode = tar.TypeReg, int64(len(e.body)), 0o644
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testRuntimePins pins archive as the linux/amd64 runtime.
func testRuntimePins(archive []byte) map[string]RuntimeArchive {
	sum := sha256.Sum256(archive)
	return map[string]RuntimeArchive{"linux/amd64": {
		Version: "1.23.2",
		Name:    "onnxruntime-linux-x64-1.23.2.tgz",
		SHA256:  hex.EncodeToString(sum[:]),
		Library: "libonnxruntime.so.1.23.2",
	}}
}

// newReleaseSite serves archive as a release download.
func newReleaseSite(t *testing.T, archive []byte) (*fakeHub, *httptest.Server) {
	t.Helper()
	h := &fakeHub{prefix: "/v1.23.2/", body: map[string][]byte{"onnxruntime-linux-x64-1.23.2.tgz": archive}, truncate: map[string]int{}}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv
}

func TestPullRuntime(t *testing.T) {
	// Random bytes, so the archive stays about as large as the library.
	lib := make([]byte, 1<<20)
	if _, err := rand.NewChaCha8([32]byte{1}).Read(lib); err != nil {
		t.Fatal(err)
	}
	archive := runtimeTarball(t, lib)
	const name = "onnxruntime-linux-x64-1.23.2.tgz"
	tests := []struct {
		name     string
		platform string
		serve    func(h *fakeHub)
		pins     func(p map[string]RuntimeArchive)
		prepare  func(t *testing.T, rtDir string)
		wantErr  error
		wantMsg  string
		wantPart bool   // a partial archive is kept for resuming
		wantRng  string // the first Range header sent
		wantReqs int    // requests made; -1 means any
	}{
		{name: "good archive", wantReqs: 1},
		{
			name:     "bad checksum",
			serve:    func(h *fakeHub) { b := bytes.Clone(archive); b[len(b)/2] ^= 1; h.body[name] = b },
			wantErr:  ErrWrongFile,
			wantMsg:  "sha256 mismatch",
			wantReqs: 1,
		},
		{
			name:     "truncated",
			serve:    func(h *fakeHub) { h.truncate[name] = 10000 },
			wantMsg:  "download interrupted at 10000 of",
			wantPart: true,
			wantReqs: 1,
		},
		{
			name: "truncated, length not sent",
			serve: func(h *fakeHub) {
				h.truncate[name] = 10000
				h.chunked = true
			},
			wantMsg:  "download interrupted at 10000 bytes",
			wantPart: true,
			wantReqs: 1,
		},
		{
			name: "resumed",
			prepare: func(t *testing.T, rtDir string) {
				writeFile(t, filepath.Join(rtDir, name+".part"), string(archive[:7000]))
			},
			wantRng:  "bytes=7000-",
			wantReqs: 1,
		},
		{
			name: "complete partial archive is not fetched again",
			prepare: func(t *testing.T, rtDir string) {
				writeFile(t, filepath.Join(rtDir, name+".part"), string(archive))
			},
			wantReqs: 0,
		},
		{
			name: "verified archive left by an interrupted install",
			prepare: func(t *testing.T, rtDir string) {
				writeFile(t, filepath.Join(rtDir, name), string(archive))
			},
			wantReqs: 0,
		},
		{
			name: "damaged library is installed again",
			prepare: func(t *testing.T, rtDir string) {
				writeFile(t, filepath.Join(rtDir, "libonnxruntime.so"), "damaged")
				sum := sha256.Sum256(lib)
				writeFile(t, filepath.Join(rtDir, runtimeStampFile), fmt.Sprintf(`{"version":"1.23.2","archive":%q,"archive_sha256":%q,"library":"libonnxruntime.so.1.23.2","file":"libonnxruntime.so","library_sha256":%q}`,
					name, testRuntimePins(archive)["linux/amd64"].SHA256, hex.EncodeToString(sum[:])))
			},
			wantReqs: 1,
		},
		{
			name:     "platform without a pinned sum",
			platform: "plan9/386",
			wantErr:  ErrNoRuntimePin,
			wantMsg:  "no pinned onnx runtime archive for plan9/386 (pinned: linux/amd64): install ONNX Runtime 1.17 or newer yourself and set TMEM_ORT_LIB",
			wantReqs: 0,
		},
		{
			name: "archive without the library",
			pins: func(p map[string]RuntimeArchive) {
				a := p["linux/amd64"]
				a.Library = "libonnxruntime.so.9"
				p["linux/amd64"] = a
			},
			wantMsg:  "holds no regular file named libonnxruntime.so.9",
			wantReqs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, srv := newReleaseSite(t, archive)
			if tt.serve != nil {
				tt.serve(h)
			}
			pins := testRuntimePins(archive)
			if tt.pins != nil {
				tt.pins(pins)
			}
			dir := t.TempDir()
			rtDir := filepath.Join(dir, RuntimeDirName)
			if tt.prepare != nil {
				if err := os.Mkdir(rtDir, 0o755); err != nil {
					t.Fatal(err)
				}
				tt.prepare(t, rtDir)
			}
			platform := tt.platform
			if platform == "" {
				platform = "linux/amd64"
			}
			st, err := PullRuntime(context.Background(), RuntimePullOptions{BaseURL: srv.URL, Dir: dir, Platform: platform, Pins: pins, HTTPClient: srv.Client()})
			if h.requests != tt.wantReqs {
				t.Errorf("%d requests, want %d", h.requests, tt.wantReqs)
			}
			if tt.wantRng != "" && (len(h.ranges) == 0 || h.ranges[0] != tt.wantRng) {
				t.Errorf("ranges = %v, want %s first", h.ranges, tt.wantRng)
			}
			if tt.wantErr != nil || tt.wantMsg != "" {
				requirePullRuntimeFailed(t, err, tt.wantErr, tt.wantMsg, rtDir, tt.wantPart, tt.prepare != nil)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			requireRuntimeInstalled(t, dir, st, lib)
		})
	}
}

// TestPullRuntimeDarwin installs from a macOS-shaped archive, as pinned
// for darwin/arm64: the versioned dylib, under the name the loader looks
// for on macOS.
func TestPullRuntimeDarwin(t *testing.T) {
	lib := []byte("a dylib's bytes")
	archive := releaseTarball(t, "onnxruntime-osx-arm64-1.23.2/", "libonnxruntime.1.23.2.dylib", lib,
		[][2]string{{"libonnxruntime.dylib", "libonnxruntime.1.23.2.dylib"}}, "libonnxruntime_providers_shared.dylib")
	const name = "onnxruntime-osx-arm64-1.23.2.tgz"
	h, srv := newReleaseSite(t, archive)
	h.body[name] = archive
	sum := sha256.Sum256(archive)
	pins := map[string]RuntimeArchive{"darwin/arm64": {Version: "1.23.2", Name: name, SHA256: hex.EncodeToString(sum[:]), Library: "libonnxruntime.1.23.2.dylib"}}
	dir := t.TempDir()
	st, err := PullRuntime(context.Background(), RuntimePullOptions{BaseURL: srv.URL, Dir: dir, Platform: "darwin/arm64", Pins: pins, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, RuntimeDirName, "libonnxruntime.dylib"))
	if err != nil || !bytes.Equal(got, lib) || st.File != "libonnxruntime.dylib" {
		t.Fatalf("installed %q (%v), stamp %+v; want the archive's dylib as libonnxruntime.dylib", got, err, st)
	}
}

// TestRuntimePins checks the pinned archives against what installing them
// needs: a platform whose library names the loader knows, an archive of
// the pinned version, a library that is the versioned one the loader
// finds, and a whole sha256.
func TestRuntimePins(t *testing.T) {
	for plat, pin := range RuntimePins {
		t.Run(plat, func(t *testing.T) {
			goos, _, _ := strings.Cut(plat, "/")
			names := runtimeLibNames[goos]
			versioned := false
			for _, n := range names {
				ok, _ := filepath.Match(n, pin.Library)
				versioned = versioned || ok && strings.Contains(pin.Library, pin.Version)
			}
			if !versioned {
				t.Errorf("library %s is none of %v with version %s", pin.Library, names, pin.Version)
			}
			if !strings.Contains(pin.Name, "-"+pin.Version+".") {
				t.Errorf("archive %s is not of version %s", pin.Name, pin.Version)
			}
			if b, err := hex.DecodeString(pin.SHA256); err != nil || len(b) != sha256.Size {
				t.Errorf("sha256 %q is not one", pin.SHA256)
			}
		})
	}
}

// requirePullRuntimeFailed checks the error and that no library, archive or
// (unless wanted) partial download is left, nor a folder Pull created.
func requirePullRuntimeFailed(t *testing.T, err, wantErr error, wantMsg, rtDir string, wantPart, existed bool) {
	t.Helper()
	if err == nil {
		t.Fatal("pull succeeded")
	}
	if wantErr != nil && !errors.Is(err, wantErr) {
		t.Errorf("err = %v, want %v", err, wantErr)
	}
	if !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("err = %v, want it to mention %q", err, wantMsg)
	}
	if _, err := os.Stat(filepath.Join(rtDir, "libonnxruntime.so")); err == nil {
		t.Error("a library was installed")
	}
	_, err = os.Stat(filepath.Join(rtDir, "onnxruntime-linux-x64-1.23.2.tgz.part"))
	if (err == nil) != wantPart {
		t.Errorf("partial archive left = %v, want %v", err == nil, wantPart)
	}
	if entries, err := os.ReadDir(rtDir); !existed && !wantPart && err == nil {
		t.Errorf("runtime folder left behind with %d entries", len(entries))
	}
}

// requireRuntimeInstalled checks the library, its stamp, and that nothing
// else but the pull lock is left in the runtime folder.
func requireRuntimeInstalled(t *testing.T, dir string, st RuntimeStamp, lib []byte) {
	t.Helper()
	rtDir := filepath.Join(dir, RuntimeDirName)
	got, err := os.ReadFile(filepath.Join(rtDir, "libonnxruntime.so"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, lib) {
		t.Errorf("installed library is %d bytes, not the archive's %d", len(got), len(lib))
	}
	entries, err := os.ReadDir(rtDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{pullLockName, runtimeStampFile, "libonnxruntime.so"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("runtime folder holds %v, want %v", names, want)
	}
	info, err := InstalledRuntime(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Installed || !info.OK || info.RuntimeStamp != st || info.Path != filepath.Join(rtDir, "libonnxruntime.so") {
		t.Errorf("InstalledRuntime = %+v, want %+v installed and ok", info, st)
	}
	if found := FindRuntime("", dir, func(string) string { return "" }); found != info.Path {
		t.Errorf("FindRuntime = %q, want the installed %q", found, info.Path)
	}
}

// TestPullRuntimeTwice: a second pull finds the library in place and asks
// for nothing.
func TestPullRuntimeTwice(t *testing.T) {
	archive := runtimeTarball(t, []byte("library"))
	h, srv := newReleaseSite(t, archive)
	o := RuntimePullOptions{BaseURL: srv.URL, Dir: t.TempDir(), Platform: "linux/amd64", Pins: testRuntimePins(archive), HTTPClient: srv.Client()}
	for i := range 2 {
		var progress bytes.Buffer
		o.Progress = &progress
		if _, err := PullRuntime(context.Background(), o); err != nil {
			t.Fatalf("pull %d: %v", i+1, err)
		}
		if i == 1 && !strings.Contains(progress.String(), "already present") {
			t.Errorf("second pull: %q", progress.String())
		}
	}
	if h.requests != 1 {
		t.Errorf("%d requests for two pulls, want 1", h.requests)
	}
}

// TestPulledRuntimeLoads installs the real library from a served archive
// and opens the model in a fresh process (a process loads one runtime)
// with no TMEM_ORT_LIB: the auto backend must find and run it.
func TestPulledRuntimeLoads(t *testing.T) {
	if os.Getenv("TMEM_TEST_FRESH_PROCESS") != "" {
		openPulledModel(t, os.Getenv("TMEM_TEST_PULLED_MODEL"))
		return
	}
	lib, err := os.ReadFile(minilmtest.RequireORT(t))
	if err != nil {
		t.Fatal(err)
	}
	archive := runtimeTarball(t, lib)
	_, srv := newReleaseSite(t, archive)
	dir := tinyModel(t)
	if _, err := PullRuntime(context.Background(), RuntimePullOptions{BaseURL: srv.URL, Dir: dir, Platform: "linux/amd64", Pins: testRuntimePins(archive), HTTPClient: srv.Client()}); err != nil {
		t.Fatal(err)
	}
	out := inFreshProcess(t, "TestPulledRuntimeLoads", "TMEM_TEST_PULLED_MODEL="+dir)
	want := "backend=ort runtime=onnx runtime 1.23.2 (" + filepath.Join(dir, RuntimeDirName, "libonnxruntime.so") + ")"
	if !strings.Contains(out, want) {
		t.Errorf("child output lacks %q:\n%s", want, out)
	}
}

// openPulledModel is TestPulledRuntimeLoads' child: it embeds with what the
// model folder holds and prints the backend.
func openPulledModel(t *testing.T, dir string) {
	e, err := Open(Options{ModelDir: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	vecs, err := e.Embed(context.Background(), []string{"the runtime came from the archive"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 1 || len(vecs[0]) != e.Dim() {
		t.Fatalf("got %d vectors", len(vecs))
	}
	fmt.Printf("backend=%s runtime=%s fallback=%s\n", e.Backend(), e.Runtime(), e.Fallback())
}

// TestPullRemovesKilledWritesTemps: a pull killed while it wrote the
// library (hundreds of MiB) left its temp file in onnxruntime/; the next
// pull removes such a file once it is old enough to be no live writer's,
// and keeps a fresh one and every other file.
func TestPullRemovesKilledWritesTemps(t *testing.T) {
	archive := runtimeTarball(t, []byte("library"))
	_, srv := newReleaseSite(t, archive)
	dir := t.TempDir()
	rt := filepath.Join(dir, RuntimeDirName)
	if err := os.MkdirAll(rt, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	files := map[string]bool{ // name → want it removed
		".libonnxruntime.so.tmp-123": true,
		".runtime.json.tmp-9":        true,
		".libonnxruntime.so.tmp-456": false, // fresh: maybe a live writer's
		"notes.txt":                  false,
	}
	for name, stale := range files {
		p := filepath.Join(rt, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if stale || name == "notes.txt" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	o := RuntimePullOptions{BaseURL: srv.URL, Dir: dir, Platform: "linux/amd64", Pins: testRuntimePins(archive), HTTPClient: srv.Client()}
	if _, err := PullRuntime(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for name, stale := range files {
		t.Run(name, func(t *testing.T) {
			_, err := os.Lstat(filepath.Join(rt, name))
			if gone := errors.Is(err, fs.ErrNotExist); gone != stale {
				t.Errorf("removed = %v, want %v (%v)", gone, stale, err)
			}
		})
	}
}
