package minilm

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/tmemhq/tmem/internal/filecache"
	"github.com/tmemhq/tmem/layout"
)

// sumsFile, in the model folder, remembers the files' sha256 sums with the
// stat data they were taken at, so opening the model does not hash its 90 MB
// on every process start (about 80 ms, a third of a cold `tmem context` on
// the fast path). A file whose size, mtime, inode or inode change time moved
// is hashed again; any rewrite changes the last one.
const sumsFile = ".tmem-sums.json"

// stamp is the stat data a sum was taken at.
type stamp = filecache.Stamp

func stampOf(fi os.FileInfo) stamp { return filecache.StampOf(fi) }

type cachedSum struct {
	stamp
	SHA256 string `json:"sha256"`
}

// cachedSums returns the sha256 of each named file in dir, from the sums file
// where the stat data still match. It refreshes the sums file when it hashed
// anything, and carries on without it when the folder is read-only.
func cachedSums(dir string, names []string) (map[string]string, error) {
	cache := loadSums(dir)
	out := make(map[string]string, len(names))
	dirty := false
	for _, name := range names {
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		st := stampOf(fi)
		if c, ok := cache[name]; ok && c.SHA256 != "" && c.stamp == st {
			out[name] = c.SHA256
			continue
		}
		sum, _, err := fileSum(path)
		if err != nil {
			return nil, err
		}
		// The file may have changed while it was read; keep the sum for this
		// run but only cache it if the stat data held still.
		if after, err := os.Stat(path); err == nil && stampOf(after) == st {
			cache[name] = cachedSum{st, sum}
			dirty = true
		}
		out[name] = sum
	}
	if dirty {
		saveSums(dir, cache)
	}
	return out, nil
}

// saveSums writes the sums file; failure (a read-only model folder) is not
// an error, the sums are simply taken again next time.
func saveSums(dir string, cache map[string]cachedSum) {
	b, err := json.MarshalIndent(cache, "", "  ")
	if err == nil {
		_ = layout.WriteAtomic(filepath.Join(dir, sumsFile), append(b, '\n'))
	}
}

// rememberSum records a sum just computed for a file in dir, so the next
// cachedSums call need not hash it again.
func rememberSum(dir, name string, fi os.FileInfo, sum string) {
	cache := loadSums(dir)
	for n := range cache {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			delete(cache, n)
		}
	}
	cache[name] = cachedSum{stampOf(fi), sum}
	saveSums(dir, cache)
}

// loadSums reads the sums file in dir; a missing or damaged one reads as
// empty, which only costs a re-hash.
func loadSums(dir string) map[string]cachedSum {
	cache := map[string]cachedSum{}
	if b, err := readRegular(filepath.Join(dir, sumsFile)); err == nil {
		if json.Unmarshal(b, &cache) != nil {
			cache = map[string]cachedSum{}
		}
	}
	return cache
}
