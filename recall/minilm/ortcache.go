package minilm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tmemhq/tmem/recall/minilm/internal/onnxrt"
)

// ortCacheDir, in the model folder, holds the graph ONNX Runtime optimised
// from model.onnx. Loading it skips the optimisation passes that otherwise
// run on every process start.
const ortCacheDir = ".tmem-ort-cache"

// ortCacheFormat is hashed into every cache key; changing how the cache is
// built (the optimisation level, say) changes it, which orphans old entries.
const ortCacheFormat = "ort-cache-1:extended"

// staleTemp is how old another process's unfinished cache file must be
// before it counts as left behind by a crash and is removed.
const staleTemp = 10 * time.Minute

// ortCacheKey names the cache entries valid for one model file and one
// runtime version on this OS and architecture.
func ortCacheKey(modelSum, runtimeVersion string) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\n%s\n%s\n%s/%s\n",
		ortCacheFormat, modelSum, runtimeVersion, runtime.GOOS, runtime.GOARCH))
	return hex.EncodeToString(h[:])[:16]
}

// openCachedSession creates the ONNX Runtime session for the model file in
// dir, from the cached optimised graph when a valid one exists, else from
// the model file, saving the optimised graph for the next process. An entry is
// named <key>-<first 16 hex of its own sha256>.onnx: one whose content no
// longer matches its name, or that the runtime refuses, is removed and
// rebuilt. A folder that cannot be written only costs the saving. cached
// reports whether the session came from the cache.
func openCachedSession(dir, model string, rt *onnxrt.Runtime, threads int) (s *onnxrt.Session, cached bool, err error) {
	sums, err := cachedSums(dir, []string{model})
	if err != nil {
		return nil, false, fmt.Errorf("model identity: %w", err)
	}
	key := ortCacheKey(sums[model], rt.Version())
	cdir := filepath.Join(dir, ortCacheDir)
	opts := onnxrt.SessionOptions{IntraOpThreads: threads, Optimize: onnxrt.OptimizeNone}
	if path, ok := findCacheEntry(cdir, key); ok {
		s, err := rt.NewSession(path, ortInputs, "last_hidden_state", opts)
		if err == nil {
			return s, true, nil
		}
		os.Remove(path)
	}
	s, err = buildCacheEntry(filepath.Join(dir, model), cdir, key, rt, opts)
	return s, false, err
}

// findCacheEntry returns the valid entry for key, removing damaged ones.
func findCacheEntry(cdir, key string) (string, bool) {
	matches, _ := filepath.Glob(filepath.Join(cdir, key+"-*.onnx"))
	for _, path := range matches {
		name := filepath.Base(path)
		want := strings.TrimSuffix(strings.TrimPrefix(name, key+"-"), ".onnx")
		sums, err := cachedSums(cdir, []string{name})
		if err == nil && len(want) == 16 && strings.HasPrefix(sums[name], want) {
			return path, true
		}
		os.Remove(path)
	}
	return "", false
}

// buildCacheEntry creates the session from the model file and publishes the
// optimised graph the runtime wrote on the way.
func buildCacheEntry(model, cdir, key string, rt *onnxrt.Runtime, opts onnxrt.SessionOptions) (*onnxrt.Session, error) {
	opts.Optimize = onnxrt.OptimizeExtended
	if err := os.MkdirAll(cdir, 0o755); err == nil {
		if f, err := os.CreateTemp(cdir, key+".tmp-*"); err == nil {
			opts.SaveOptimized = f.Name()
			f.Close()
		}
	}
	s, err := rt.NewSession(model, ortInputs, "last_hidden_state", opts)
	if opts.SaveOptimized == "" {
		return s, err
	}
	if err != nil {
		os.Remove(opts.SaveOptimized)
		return nil, err
	}
	publishCacheEntry(cdir, key, opts.SaveOptimized)
	return s, nil
}

// publishCacheEntry renames a finished temp file into place under its
// content's name and removes entries no other key can use. No fsync: an entry
// cut short by a crash no longer matches its name and is rebuilt.
func publishCacheEntry(cdir, key, tmp string) {
	sum, _, err := fileSum(tmp)
	if err != nil {
		os.Remove(tmp)
		return
	}
	name := key + "-" + sum[:16] + ".onnx"
	// The temp file was created private; the entry is as readable as the model.
	_ = os.Chmod(tmp, 0o644)
	if err := os.Rename(tmp, filepath.Join(cdir, name)); err != nil {
		os.Remove(tmp)
		return
	}
	if fi, err := os.Stat(filepath.Join(cdir, name)); err == nil {
		rememberSum(cdir, name, fi, sum)
		pruneCache(cdir, key, fi.ModTime())
	}
}

// pruneCache removes entries for other keys (another model or runtime) and
// temp files that stopped growing well before now, the time the file system
// gave the entry just written.
func pruneCache(cdir, key string, now time.Time) {
	entries, err := os.ReadDir(cdir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".onnx") && !strings.HasPrefix(name, key+"-"):
			os.Remove(filepath.Join(cdir, name))
		case strings.Contains(name, ".tmp-"):
			if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > staleTemp {
				os.Remove(filepath.Join(cdir, name))
			}
		}
	}
}
