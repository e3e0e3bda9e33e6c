package minilm

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/minilm/internal/onnxrt"
)

// RuntimeArchive pins one ONNX Runtime release archive.
type RuntimeArchive struct {
	// Version is the release, e.g. "1.23.2"; the archive is fetched from
	// BaseURL/vVersion/Name.
	Version string `json:"version"`
	// Name is the archive's file name.
	Name string `json:"archive"`
	// SHA256 is the archive's hex sha256.
	SHA256 string `json:"archive_sha256"`
	// Library is the file name of the shared library inside the archive
	// (a regular file, not one of the symlinks to it).
	Library string `json:"library"`
}

// RuntimePins are the ONNX Runtime archives 'tmem model pull' installs, by
// GOOS/GOARCH. Only sums published for the official release archives by
// several independent projects are pinned here.
var RuntimePins = map[string]RuntimeArchive{
	"linux/amd64":  {"1.23.2", "onnxruntime-linux-x64-1.23.2.tgz", "1fa4dcaef22f6f7d5cd81b28c2800414350c10116f5fdd46a2160082551c5f9b", "libonnxruntime.so.1.23.2"},
	"linux/arm64":  {"1.23.2", "onnxruntime-linux-aarch64-1.23.2.tgz", "7c63c73560ed76b1fac6cff8204ffe34fe180e70d6582b5332ec094810241e5c", "libonnxruntime.so.1.23.2"},
	"darwin/arm64": {"1.23.2", "onnxruntime-osx-arm64-1.23.2.tgz", "b4d513ab2b26f088c66891dbbc1408166708773d7cc4163de7bdca0e9bbb7856", "libonnxruntime.1.23.2.dylib"},
	"darwin/amd64": {"1.23.2", "onnxruntime-osx-x86_64-1.23.2.tgz", "d10359e16347b57d9959f7e80a225a5b4a66ed7d7e007274a15cae86836485a6", "libonnxruntime.1.23.2.dylib"},
}

// DefaultRuntimeBaseURL is where PullRuntime downloads from unless told
// otherwise: ONNX Runtime's release downloads.
const DefaultRuntimeBaseURL = "https://github.com/microsoft/onnxruntime/releases/download"

// CanLoadRuntime says whether this build can load ONNX Runtime: false in a
// static build (tag tmem_static), which has no dynamic loader, and on
// Windows. ErrCannotLoadRuntime then says why.
const CanLoadRuntime = onnxrt.CanLoad

// ErrCannotLoadRuntime is why this build cannot load ONNX Runtime; nil when
// it can.
var ErrCannotLoadRuntime = onnxrt.ErrNoLoader

// ErrNoRuntimePin means no ONNX Runtime archive is pinned for the platform,
// so none is downloaded.
var ErrNoRuntimePin = errors.New("no pinned onnx runtime archive")

// runtimeStampFile, in the runtime folder, records which archive the
// library came from and the library's sha256.
const runtimeStampFile = ".tmem-runtime.json"

// maxLibrarySize bounds the library read from an archive.
const maxLibrarySize = 512 << 20

// RuntimePullOptions configure PullRuntime.
type RuntimePullOptions struct {
	// BaseURL is the release download site; empty means
	// DefaultRuntimeBaseURL.
	BaseURL string
	// Dir is the model folder; the library goes to Dir/onnxruntime, where
	// FindRuntime looks.
	Dir string
	// Platform is "GOOS/GOARCH"; empty means the running one.
	Platform string
	// Pins are the archives by platform; nil means RuntimePins.
	Pins map[string]RuntimeArchive
	// Progress receives progress lines; nil discards them.
	Progress io.Writer
	// HTTPClient makes the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// IdleTimeout is how long to wait for the server's next byte; 0 means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration

	// maxSize bounds the archive; 0 means maxUnpinnedSize. Tests set a
	// small one.
	maxSize int64
}

// RuntimeStamp describes an installed runtime library.
type RuntimeStamp struct {
	RuntimeArchive
	// File is the installed library's name in the runtime folder.
	File string `json:"file"`
	// LibrarySHA256 is the installed library's hex sha256.
	LibrarySHA256 string `json:"library_sha256"`
}

// PullRuntime installs the ONNX Runtime library of the archive pinned for
// the platform into Dir/onnxruntime. The archive is downloaded like a model
// file (resumed when partial, checked against its pinned sha256), then only
// the library is taken out of it and renamed into place; the archive is
// removed once the library and its stamp are written. A library already
// installed from the pinned archive is kept. Without a pin for the platform
// it returns an error wrapping ErrNoRuntimePin and touches nothing.
func PullRuntime(ctx context.Context, o RuntimePullOptions) (st RuntimeStamp, err error) {
	pin, goos, err := runtimePin(o)
	if err != nil {
		return st, err
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	dir := filepath.Join(o.Dir, RuntimeDirName)
	libPath := filepath.Join(dir, runtimeLibNames[goos][0])
	if st, err := readRuntimeStamp(dir); err == nil && st.RuntimeArchive == pin && st.File == filepath.Base(libPath) && verifyFile(libPath, File{SHA256: st.LibrarySHA256}) == nil {
		fmt.Fprintf(progress, "%s: already present, sum ok\n", pin.Name)
		return st, nil
	}
	top, err := mkdirAll(dir)
	if err != nil {
		return st, fmt.Errorf("pull onnx runtime: %w", err)
	}
	defer func() {
		if err != nil {
			removeEmpty(dir, top)
		}
	}()
	unlock, err := lockPull(dir)
	if err != nil {
		return st, fmt.Errorf("pull onnx runtime: %w", err)
	}
	defer unlock()
	archive := filepath.Join(dir, pin.Name)
	f := File{Name: pin.Name, Path: pin.Name, SHA256: pin.SHA256}
	if verifyFile(archive, f) != nil {
		if err := download(ctx, newFetcher(o.HTTPClient, o.IdleTimeout, speedLimit{}, o.maxSize), runtimeURL(o.BaseURL, pin), archive, f, progress); err != nil {
			return st, fmt.Errorf("pull onnx runtime %s: %w", pin.Name, err)
		}
	}
	st, err = installLibrary(archive, pin, libPath)
	if err != nil {
		return st, fmt.Errorf("pull onnx runtime %s: %w", pin.Name, err)
	}
	fmt.Fprintf(progress, "%s: ok (sha256 %s), library %s\n", pin.Name, pin.SHA256[:12], libPath)
	return st, nil
}

// runtimePin picks the archive pinned for o's platform.
func runtimePin(o RuntimePullOptions) (RuntimeArchive, string, error) {
	plat := o.Platform
	if plat == "" {
		plat = runtime.GOOS + "/" + runtime.GOARCH
	}
	pins := o.Pins
	if pins == nil {
		pins = RuntimePins
	}
	goos, _, _ := strings.Cut(plat, "/")
	pin, ok := pins[plat]
	if !ok || len(runtimeLibNames[goos]) == 0 {
		have := make([]string, 0, len(pins))
		for p := range pins {
			have = append(have, p)
		}
		slices.Sort(have)
		return pin, goos, fmt.Errorf("%w for %s (pinned: %s): install ONNX Runtime 1.17 or newer yourself and set TMEM_ORT_LIB to its library", ErrNoRuntimePin, plat, strings.Join(have, ", "))
	}
	return pin, goos, nil
}

func runtimeURL(base string, pin RuntimeArchive) string {
	base = strings.TrimRight(base, "/")
	if base == "" {
		base = DefaultRuntimeBaseURL
	}
	return base + "/v" + pin.Version + "/" + pin.Name
}

// installLibrary takes the library out of a verified archive, writes it to
// libPath atomically, records the stamp and removes the archive.
func installLibrary(archive string, pin RuntimeArchive, libPath string) (RuntimeStamp, error) {
	lib, err := readLibrary(archive, pin.Library)
	if err != nil {
		// The pinned archive cannot change, so keeping it helps nobody.
		return RuntimeStamp{}, errors.Join(err, os.Remove(archive))
	}
	if err := layout.WriteAtomic(libPath, lib); err != nil {
		return RuntimeStamp{}, fmt.Errorf("install library: %w", err)
	}
	sum, _, err := fileSum(libPath)
	if err != nil {
		return RuntimeStamp{}, err
	}
	st := RuntimeStamp{RuntimeArchive: pin, File: filepath.Base(libPath), LibrarySHA256: sum}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return st, err
	}
	if err := layout.WriteAtomic(filepath.Join(filepath.Dir(libPath), runtimeStampFile), append(b, '\n')); err != nil {
		return st, fmt.Errorf("record runtime: %w", err)
	}
	if err := os.Remove(archive); err != nil {
		return st, fmt.Errorf("remove archive: %w", err)
	}
	return st, nil
}

// readLibrary returns the regular file called name from a .tgz archive.
func readLibrary(archive, name string) ([]byte, error) {
	f, err := layout.OpenRegular(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", archive, err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s holds no regular file named %s", archive, name)
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", archive, err)
		}
		if hdr.Typeflag != tar.TypeReg || path.Base(hdr.Name) != name {
			continue
		}
		if hdr.Size > maxLibrarySize {
			return nil, fmt.Errorf("%s: %s is %d bytes, more than a runtime library can be", archive, hdr.Name, hdr.Size)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("read %s from %s: %w", hdr.Name, archive, err)
		}
		return b, nil
	}
}

// readRuntimeStamp reads the stamp in a runtime folder.
func readRuntimeStamp(dir string) (RuntimeStamp, error) {
	var st RuntimeStamp
	b, err := readRegular(filepath.Join(dir, runtimeStampFile))
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("parse %s: %w", filepath.Join(dir, runtimeStampFile), err)
	}
	if st.File == "" || filepath.Base(st.File) != st.File {
		return st, fmt.Errorf("parse %s: library file %q is not a name in that folder", filepath.Join(dir, runtimeStampFile), st.File)
	}
	return st, nil
}

// RuntimeInfo describes the runtime library 'tmem model pull' installed in
// a model folder.
type RuntimeInfo struct {
	// Installed is true when the stamp and its library are there.
	Installed bool `json:"installed"`
	// OK means the library still has the sum it was installed with.
	OK bool `json:"ok"`
	// Path is the installed library.
	Path string `json:"path,omitempty"`
	RuntimeStamp
}

// InstalledRuntime reports the runtime library in modelDir/onnxruntime.
func InstalledRuntime(modelDir string) (RuntimeInfo, error) {
	st, err := readRuntimeStamp(filepath.Join(modelDir, RuntimeDirName))
	if errors.Is(err, fs.ErrNotExist) {
		return RuntimeInfo{}, nil
	}
	if err != nil {
		return RuntimeInfo{}, err
	}
	info := RuntimeInfo{RuntimeStamp: st, Path: filepath.Join(modelDir, RuntimeDirName, st.File)}
	switch err := verifyFile(info.Path, File{SHA256: st.LibrarySHA256}); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		info.Installed = true
	default:
		info.Installed, info.OK = true, true
	}
	return info, nil
}
