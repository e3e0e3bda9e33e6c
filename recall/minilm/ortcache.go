package minilm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/minilm/internal/onnxrt"
)

// ortCacheDir, in the model folder, holds the graph ONNX Runtime optimised
// from the model file. Loading it skips the optimisation passes that
// otherwise run on every process start.
const ortCacheDir = ".tmem-ort-cache"

// ortCacheFormat is hashed into every cache key and written into every
// manifest; changing how the cache is built (the optimisation level, the
// file format) changes it, which orphans old entries.
const ortCacheFormat = "ort-cache-3:extended,ort-format"

// The files of a cache entry, a folder named by its key: the optimised graph
// with its weights in ONNX Runtime's own format, which a session runs from
// a mapping of the file, reading the graph where it lies and the weights in
// place; and the manifest, written last, that records it.
const (
	entryModel    = "model.ort"
	entryManifest = "manifest.json"
)

// entryData are the files a manifest vouches for.
var entryData = []string{entryModel}

// staleTemp is how old another process's unfinished cache entry must be
// before it counts as left behind by a crash and is removed.
const staleTemp = 10 * time.Minute

// manifest records an entry's data files: size, stat stamp and sha256.
type manifest struct {
	Format string               `json:"format"`
	Files  map[string]cachedSum `json:"files"`
}

// ortCacheKey names the cache entry valid for one model file and one runtime
// version on this OS and architecture.
func ortCacheKey(modelSum, runtimeVersion string) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\n%s\n%s\n%s/%s\n",
		ortCacheFormat, modelSum, runtimeVersion, runtime.GOOS, runtime.GOARCH))
	return hex.EncodeToString(h[:])[:16]
}

// openCachedSession creates the ONNX Runtime session for the model file in
// dir, from the cached optimised model when a valid entry exists, else from
// the model file, saving the optimised model for the next process. An entry
// that fails its manifest (see checkEntry), or that the runtime refuses, is
// removed and rebuilt. A folder that cannot be written only costs the
// saving. cached reports whether the session came from the cache.
func openCachedSession(dir, model string, rt *onnxrt.Runtime, opts onnxrt.SessionOptions) (s *onnxrt.Session, cached bool, err error) {
	sums, err := cachedSums(dir, []string{model})
	if err != nil {
		return nil, false, fmt.Errorf("model identity: %w", err)
	}
	key := ortCacheKey(sums[model], rt.Version())
	cdir := filepath.Join(dir, ortCacheDir)
	entry := filepath.Join(cdir, key)
	if checkEntry(entry) == nil {
		opts.Optimize = onnxrt.OptimizeNone
		s, err := rt.NewMappedSession(filepath.Join(entry, entryModel), ortInputs, "last_hidden_state", opts)
		if err == nil {
			return s, true, nil
		}
		discardEntry(cdir, key)
	} else if _, err := os.Lstat(entry); err == nil {
		discardEntry(cdir, key)
	}
	s, err = buildCacheEntry(filepath.Join(dir, model), cdir, key, rt, opts)
	return s, false, err
}

// checkEntry says whether the entry's files are the ones its manifest
// records. A file whose size and stat stamp (mtime, inode change time,
// inode) match is taken as is: every write through the file system moves
// the inode change time, which nothing can set back, and takeSeal took the
// stamps only once the clock had moved past the files' last change. Files
// with the right sizes but other stamps (the folder was copied or moved) are
// hashed, and the manifest restamped when they match. What no stamp shows,
// bits rotting on the disk, is left to VerifyORTCache.
func checkEntry(entry string) error {
	m, err := readManifest(entry)
	if err != nil {
		return err
	}
	same := true
	for _, name := range entryData {
		path := filepath.Join(entry, name)
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		if rec := m.Files[name]; fi.Size() != rec.Size {
			return fmt.Errorf("%s: %d bytes, the manifest says %d", path, fi.Size(), rec.Size)
		}
		same = same && stampOf(fi) == m.Files[name].stamp
	}
	if same {
		return nil
	}
	fresh, err := takeSeal(entry)
	if err != nil {
		// A read-only folder, say: check without restamping.
		return checkSums(entry, m)
	}
	for _, name := range entryData {
		if got, want := fresh.Files[name].SHA256, m.Files[name].SHA256; got != want {
			return fmt.Errorf("%s: sha256 %s, the manifest says %s", filepath.Join(entry, name), got, want)
		}
	}
	// Best effort: if it fails, the next process hashes again.
	_ = writeManifest(entry, fresh)
	return nil
}

// checkSums hashes the entry's data files and compares them with m.
func checkSums(entry string, m manifest) error {
	for _, name := range entryData {
		path := filepath.Join(entry, name)
		sum, _, err := fileSum(path)
		if err != nil {
			return err
		}
		if want := m.Files[name].SHA256; sum != want {
			return fmt.Errorf("%s: sha256 %s, the manifest says %s", path, sum, want)
		}
	}
	return nil
}

// readManifest reads an entry's manifest and checks it is of this format
// and names every data file.
func readManifest(entry string) (manifest, error) {
	var m manifest
	path := filepath.Join(entry, entryManifest)
	b, err := readRegular(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	if m.Format != ortCacheFormat {
		return m, fmt.Errorf("%s: format %q, want %q", path, m.Format, ortCacheFormat)
	}
	for _, name := range entryData {
		if m.Files[name].SHA256 == "" {
			return m, fmt.Errorf("%s: no sum for %s", path, name)
		}
	}
	return m, nil
}

// checkSum hashes the file at path and compares it with want.
func checkSum(path, want string) error {
	sum, _, err := fileSum(path)
	if err != nil {
		return err
	}
	if sum != want {
		return fmt.Errorf("%s: sha256 %s, the manifest says %s", path, sum, want)
	}
	return nil
}

// buildCacheEntry creates the session from the model file and publishes the
// optimised model the runtime wrote on the way.
func buildCacheEntry(model, cdir, key string, rt *onnxrt.Runtime, opts onnxrt.SessionOptions) (*onnxrt.Session, error) {
	opts.Optimize = onnxrt.OptimizeExtended
	tmp := ""
	if err := os.MkdirAll(cdir, 0o755); err == nil {
		if tmp, err = os.MkdirTemp(cdir, key+".tmp-*"); err == nil {
			opts.SaveOptimized = filepath.Join(tmp, entryModel)
		}
	}
	s, err := rt.NewSession(model, ortInputs, "last_hidden_state", opts)
	if tmp == "" {
		return s, err
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	publishCacheEntry(cdir, key, tmp)
	return s, nil
}

// publishCacheEntry seals a finished temp entry and renames it into place,
// then removes what no other process can use. Of processes that build the
// same entry at once, the first rename wins; for the others the place is
// taken (the rename of a folder never replaces a folder that has files) and
// they drop theirs.
func publishCacheEntry(cdir, key, tmp string) {
	// The temp folder was created private; the entry is as readable as the model.
	err := os.Chmod(tmp, 0o755)
	for _, name := range entryData {
		if err == nil {
			err = os.Chmod(filepath.Join(tmp, name), 0o644)
		}
	}
	var m manifest
	if err == nil {
		m, err = takeSeal(tmp)
	}
	if err == nil {
		err = writeManifest(tmp, m)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(cdir, key))
	}
	if err != nil {
		os.RemoveAll(tmp)
		return
	}
	syncFolder(cdir)
	onnxrt.RecacheHuge(filepath.Join(cdir, key, entryModel))
	if fi, err := os.Stat(filepath.Join(cdir, key, entryManifest)); err == nil {
		pruneCache(cdir, key, fi.ModTime())
	}
}

// takeSeal returns the manifest for the entry's data files: each one's
// size, stamp and sha256, taken once the file system clock has moved past
// the files' last change (settle), with the files synced to disk so that the
// manifest, written after, never vouches for data a crash can lose.
func takeSeal(entry string) (manifest, error) {
	m := manifest{Format: ortCacheFormat, Files: map[string]cachedSum{}}
	if err := settle(entry); err != nil {
		return m, err
	}
	for _, name := range entryData {
		rec, err := sealFile(filepath.Join(entry, name))
		if err != nil {
			return m, err
		}
		m.Files[name] = rec
	}
	return m, nil
}

// writeManifest replaces the entry's manifest with m.
func writeManifest(entry string, m manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return layout.WriteAtomic(filepath.Join(entry, entryManifest), append(b, '\n'))
}

// sealFile hashes and syncs one file, and returns its sum with the stamp it
// had throughout.
func sealFile(path string) (cachedSum, error) {
	f, err := layout.OpenRegular(path)
	if err != nil {
		return cachedSum{}, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return cachedSum{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return cachedSum{}, fmt.Errorf("hash %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return cachedSum{}, fmt.Errorf("sync %s: %w", path, err)
	}
	after, err := f.Stat()
	if err != nil {
		return cachedSum{}, err
	}
	if stampOf(after) != stampOf(before) {
		return cachedSum{}, fmt.Errorf("%s changed while it was hashed", path)
	}
	return cachedSum{stampOf(before), hex.EncodeToString(h.Sum(nil))}, nil
}

// settle waits until a file created in entry gets a later time than the
// data files' last change. File system clocks tick in steps of a few
// milliseconds (a second on some): without the wait, a write in the same
// tick as the file's last could leave its stamp as it was.
func settle(entry string) error {
	var last int64
	for _, name := range entryData {
		fi, err := os.Stat(filepath.Join(entry, name))
		if err != nil {
			return err
		}
		last = max(last, changeTime(fi))
	}
	probe := filepath.Join(entry, ".settle")
	defer os.Remove(probe)
	for wait := time.Millisecond; wait < 5*time.Second; wait *= 2 {
		os.Remove(probe)
		if f, err := os.Create(probe); err == nil {
			fi, err := f.Stat()
			f.Close()
			if err == nil && changeTime(fi) > last {
				return nil
			}
		}
		time.Sleep(wait)
	}
	return errors.New("the file system clock does not move")
}

// changeTime is the later of a file's modification and inode change times.
func changeTime(fi os.FileInfo) int64 {
	st := stampOf(fi)
	return max(st.MTime, st.CTime)
}

// discardEntry moves a damaged entry aside in one rename, so that no process
// finds it half removed, and removes it. If another process replaced it in
// the meantime, that entry goes instead, which costs one rebuild.
func discardEntry(cdir, key string) {
	entry := filepath.Join(cdir, key)
	// A fresh unused name: os.Rename will not replace a folder.
	trash, err := os.MkdirTemp(cdir, key+".tmp-*")
	if err == nil {
		os.Remove(trash)
		err = os.Rename(entry, trash)
	}
	if err != nil {
		os.RemoveAll(entry)
		return
	}
	os.RemoveAll(trash)
}

// pruneCache removes entries for other keys (another model or runtime),
// whatever older formats left, and temp entries that stopped changing well
// before now, the time the file system gave the manifest just written.
func pruneCache(cdir, key string, now time.Time) {
	entries, err := os.ReadDir(cdir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if name == key {
			continue
		}
		if strings.Contains(name, ".tmp-") {
			if fi, err := e.Info(); err != nil || now.Sub(fi.ModTime()) <= staleTemp {
				continue
			}
		}
		os.RemoveAll(filepath.Join(cdir, name))
	}
}

// syncFolder makes a rename in dir durable; failure only risks the entry
// being rebuilt after a crash.
func syncFolder(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// CacheCheck is what VerifyORTCache found in a model folder's
// optimised-graph cache.
type CacheCheck struct {
	// Verified counts the entries whose files match their manifests.
	Verified int `json:"verified"`
	// Removed says which entries did not, and why; they were removed, and
	// the next session start rebuilds them.
	Removed []string `json:"removed,omitempty"`
}

// VerifyORTCache hashes every file of every entry in the model folder's
// optimised-graph cache and compares it with the entry's manifest, the full
// check a session start makes only when stat data moved, and removes the
// entries that fail. Unfinished entries of running processes are left alone.
func VerifyORTCache(dir string) (CacheCheck, error) {
	var out CacheCheck
	cdir := filepath.Join(dir, ortCacheDir)
	entries, err := os.ReadDir(cdir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("check onnx runtime cache: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.Contains(name, ".tmp-") {
			continue
		}
		entry := filepath.Join(cdir, name)
		m, err := readManifest(entry)
		if err == nil {
			err = checkSums(entry, m)
		}
		if err != nil {
			discardEntry(cdir, name)
			out.Removed = append(out.Removed, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		out.Verified++
	}
	return out, nil
}
