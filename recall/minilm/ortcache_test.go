package minilm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

var cacheTexts = []string{"The cat sits on the mat", "naïve café", "混合 text with 中文"}

// embedORT opens dir on the ORT backend for bulk work, embeds cacheTexts
// and reports whether the session came from the optimised-graph cache.
func embedORT(t *testing.T, dir string) ([][]float32, bool) {
	t.Helper()
	return embedORTFor(t, dir, WorkloadBulk, cacheTexts)
}

// embedORTFor embeds texts on a session for the given workload.
func embedORTFor(t *testing.T, dir string, w Workload, texts []string) ([][]float32, bool) {
	t.Helper()
	vecs, e := embedOnce(t, Options{ModelDir: dir, Backend: BackendORT, ORTLib: minilmtest.RequireORT(t),
		Workload: w, Getenv: func(string) string { return "" }}, texts)
	return vecs, e.run.(*ortRunner).cached
}

// cacheNames lists what dir's cache folder holds.
func cacheNames(t *testing.T, dir string) []string {
	t.Helper()
	return cacheNamesIn(t, filepath.Join(dir, ortCacheDir))
}

// cacheNamesIn lists what a folder holds.
func cacheNamesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// activeModelPath is the model file Open runs in dir.
func activeModelPath(t *testing.T, dir string) string {
	t.Helper()
	model, err := activeModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, model)
}

// wantKey is the cache key for the model now in dir and the test runtime.
func wantKey(t *testing.T, dir string) string {
	t.Helper()
	modelSum, _, err := fileSum(activeModelPath(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := loadORT(minilmtest.RequireORT(t))
	if err != nil {
		t.Fatal(err)
	}
	return ortCacheKey(modelSum, rt.Version())
}

// checkOneValidEntry fails unless the cache holds exactly one entry, keyed
// for the model now in dir, whose manifest records its files' true sizes and
// sums, with the weights in the entry's model file; it returns the entry's
// folder.
func checkOneValidEntry(t *testing.T, dir string) string {
	t.Helper()
	key := wantKey(t, dir)
	if names := cacheNames(t, dir); !slices.Equal(names, []string{key}) {
		t.Fatalf("cache holds %v, want only the entry %s", names, key)
	}
	entry := filepath.Join(dir, ortCacheDir, key)
	m, err := readManifest(entry)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range entryData {
		sum, size, err := fileSum(filepath.Join(entry, name))
		if err != nil {
			t.Fatal(err)
		}
		if rec := m.Files[name]; rec.SHA256 != sum || rec.Size != size {
			t.Errorf("%s: manifest says %d bytes sha256 %s, the file has %d bytes sha256 %s", name, rec.Size, rec.SHA256, size, sum)
		}
	}
	model, err := os.Stat(activeModelPath(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Files[entryModel].Size; got < model.Size()/2 || got > model.Size()*2 {
		t.Errorf("cached model %d bytes, model %d bytes: the weights are not in it", got, model.Size())
	}
	return entry
}

func checkSameVectors(t *testing.T, got, want [][]float32, tol float64) {
	t.Helper()
	for i := range want {
		if d := maxAbsDiff32(got[i], want[i]); d > tol {
			t.Errorf("text %d: max abs diff %g > %g", i, d, tol)
		}
	}
}

// stamps returns the stat stamps of the entry's files.
func stamps(t *testing.T, entry string) map[string]stamp {
	t.Helper()
	out := map[string]stamp{}
	for _, name := range append([]string{entryManifest}, entryData...) {
		fi, err := os.Stat(filepath.Join(entry, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = stampOf(fi)
	}
	return out
}

func TestORTCacheReused(t *testing.T) {
	dir := tinyModel(t)
	first, cached := embedORT(t, dir)
	if cached {
		t.Fatal("first open claims a cache that did not exist")
	}
	entry := checkOneValidEntry(t, dir)
	before := stamps(t, entry)
	second, cached := embedORT(t, dir)
	if !cached {
		t.Error("second open did not use the cache")
	}
	checkSameVectors(t, second, first, 1e-6)
	if after := stamps(t, entry); !maps.Equal(after, before) {
		t.Errorf("the cache entry was rewritten on a cache hit: %v, was %v", after, before)
	}
}

// genTiny writes a tiny model with another seed: same shape, other weights.
func genTiny(t *testing.T, seed string) string {
	t.Helper()
	minilmtest.RequirePythonONNX(t)
	out := t.TempDir()
	cmd := exec.Command(minilmtest.Python, minilmtest.GenModel(), "gen", "--out", out, "--tokenizer", tinyDir, "--seed", seed)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("genmodel: %v\n%s", err, b)
	}
	return out
}

func TestORTCacheChangedModel(t *testing.T) {
	dir := tinyModel(t)
	old, _ := embedORT(t, dir)
	other := genTiny(t, "2")
	want, _ := embedORT(t, copyDir(t, other))
	if maxAbsDiff32(old[0], want[0]) < 1e-3 {
		t.Fatal("the two test models give the same vectors; the test cannot tell them apart")
	}
	b, err := os.ReadFile(modelPath(other))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, modelPath(dir), string(b))
	got, cached := embedORT(t, dir)
	if cached {
		t.Error("a changed model loaded a cached graph")
	}
	checkSameVectors(t, got, want, 1e-6)
	checkOneValidEntry(t, dir)
}

// TestORTCacheVariantSwitch: switching the folder to the int8 export and
// back never loads the other variant's entry.
func TestORTCacheVariantSwitch(t *testing.T) {
	dir := tinyModel(t)
	fp32, _ := embedORT(t, dir)
	const file = "model_qint8_avx512_vnni.onnx"
	minilmtest.Quantize(t, modelPath(dir), filepath.Join(dir, file), "int8")
	for _, step := range []struct{ name, model string }{{"to int8", file}, {"back to fp32", fp32Model}} {
		t.Run(step.name, func(t *testing.T) {
			if err := setActiveModel(dir, step.model); err != nil {
				t.Fatal(err)
			}
			got, cached := embedORT(t, dir)
			if cached {
				t.Error("loaded the other variant's entry")
			}
			if same := maxAbsDiff32(got[0], fp32[0]) == 0; same != (step.model == fp32Model) {
				t.Errorf("vectors equal to fp32's = %v, want %v", same, step.model == fp32Model)
			}
			checkOneValidEntry(t, dir)
		})
	}
}

func TestORTCacheKey(t *testing.T) {
	base := ortCacheKey("aaaa", "1.23.2")
	tests := []struct {
		name, sum, version string
		same               bool
	}{
		{"same model and runtime", "aaaa", "1.23.2", true},
		{"other model", "aaab", "1.23.2", false},
		{"other runtime version", "aaaa", "1.23.1", false},
		{"newer runtime", "aaaa", "1.24.0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ortCacheKey(tt.sum, tt.version); (got == base) != tt.same {
				t.Errorf("key %s vs %s: same = %v, want %v", got, base, got == base, tt.same)
			}
		})
	}
}

// plantEntry copies the cache entry of another model's folder into dir's
// cache under name.
func plantEntry(t *testing.T, dir, name string) string {
	t.Helper()
	other := copyDir(t, genTiny(t, "3"))
	embedORT(t, other)
	foreign := checkOneValidEntry(t, other)
	planted := filepath.Join(dir, ortCacheDir, name)
	if err := os.MkdirAll(filepath.Dir(planted), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(planted, os.DirFS(foreign)); err != nil {
		t.Fatal(err)
	}
	return planted
}

// TestORTCacheStaleEntries plants valid entries of another model where
// other runtime versions, and the format before this one, kept theirs: none
// may be loaded, and all are gone once this runtime's entry is written.
func TestORTCacheStaleEntries(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, dir, modelSum string) string
	}{
		{"other runtime version", func(t *testing.T, dir, modelSum string) string {
			return plantEntry(t, dir, ortCacheKey(modelSum, "0.0.1"))
		}},
		{"previous format, a bare graph file", func(t *testing.T, dir, modelSum string) string {
			planted := filepath.Join(dir, ortCacheDir, "0123456789abcdef-0123456789abcdef.onnx")
			if err := os.MkdirAll(filepath.Dir(planted), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(modelPath(genTiny(t, "3")))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, planted, string(b))
			writeFile(t, filepath.Join(filepath.Dir(planted), sumsFile), "{}")
			return planted
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tinyModel(t)
			want, _ := embedORT(t, copyDir(t, dir))
			modelSum, _, err := fileSum(modelPath(dir))
			if err != nil {
				t.Fatal(err)
			}
			planted := tt.plant(t, dir, modelSum)
			got, cached := embedORT(t, dir)
			if cached {
				t.Error("loaded a stale entry")
			}
			checkSameVectors(t, got, want, 1e-6)
			checkOneValidEntry(t, dir)
			if _, err := os.Stat(planted); err == nil {
				t.Errorf("%s is still there", planted)
			}
		})
	}
}

// entryDamage is one way a cache entry gets damaged between processes.
type entryDamage struct {
	name   string
	damage func(t *testing.T, entry string)
	// hit: the damage leaves the entry usable.
	hit bool
}

var entryDamages = []entryDamage{
	{"model truncated", func(t *testing.T, entry string) { truncateHalf(t, filepath.Join(entry, entryModel)) }, false},
	{"model empty", func(t *testing.T, entry string) { writeFile(t, filepath.Join(entry, entryModel), "") }, false},
	{"model missing", func(t *testing.T, entry string) { remove(t, filepath.Join(entry, entryModel)) }, false},
	{"model zero-filled start", func(t *testing.T, entry string) {
		overwrite(t, filepath.Join(entry, entryModel), 0, make([]byte, 512))
	}, false},
	{"one byte flipped in the weights", func(t *testing.T, entry string) { flipByte(t, filepath.Join(entry, entryModel)) }, false},
	{"one byte flipped in the header", func(t *testing.T, entry string) {
		overwrite(t, filepath.Join(entry, entryModel), 5, []byte{0x7f})
	}, false},
	{"model of another model, same size, own times", func(t *testing.T, entry string) {
		path := filepath.Join(entry, entryModel)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/3] ^= 0x01
		writeFile(t, path, string(b))
		// Set the mtime back; the inode change time still moves.
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}, false},
	{"manifest missing", func(t *testing.T, entry string) { remove(t, filepath.Join(entry, entryManifest)) }, false},
	{"manifest damaged", func(t *testing.T, entry string) { writeFile(t, filepath.Join(entry, entryManifest), "{not json") }, false},
	{"manifest of the previous format", func(t *testing.T, entry string) {
		b, err := os.ReadFile(filepath.Join(entry, entryManifest))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(entry, entryManifest), strings.Replace(string(b), ortCacheFormat, "ort-cache-1:extended", 1))
	}, false},
	{"garbage sealed as valid", func(t *testing.T, entry string) {
		writeFile(t, filepath.Join(entry, entryModel), strings.Repeat("not an ort model\n", 1000))
		reseal(t, entry)
	}, false},
	{"truncated model sealed as valid", func(t *testing.T, entry string) {
		truncateHalf(t, filepath.Join(entry, entryModel))
		reseal(t, entry)
	}, false},
	{"entry is a file", func(t *testing.T, entry string) {
		if err := os.RemoveAll(entry); err != nil {
			t.Fatal(err)
		}
		writeFile(t, entry, "not a folder")
	}, false},
	{"model folder copied: every stamp differs", func(t *testing.T, entry string) {
		for _, name := range append([]string{entryManifest}, entryData...) {
			path := filepath.Join(entry, name)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			remove(t, path)
			writeFile(t, path, string(b))
		}
	}, true},
}

func TestORTCacheCorrupt(t *testing.T) {
	for _, tt := range entryDamages {
		t.Run(tt.name, func(t *testing.T) {
			dir := tinyModel(t)
			want, _ := embedORT(t, dir)
			entry := checkOneValidEntry(t, dir)
			tt.damage(t, entry)
			got, cached := embedORT(t, dir)
			if cached != tt.hit {
				t.Errorf("loaded from cache = %v, want %v", cached, tt.hit)
			}
			checkSameVectors(t, got, want, 1e-6)
			checkOneValidEntry(t, dir)
			before := stamps(t, entry)
			if _, cached := embedORT(t, dir); !cached {
				t.Error("the rebuilt entry is not used by the next open")
			}
			if after := stamps(t, entry); !maps.Equal(after, before) {
				t.Errorf("the next open rewrote the entry: %v, was %v", after, before)
			}
		})
	}
}

// reseal writes a manifest for the entry's files as they are now.
func reseal(t *testing.T, entry string) {
	t.Helper()
	m, err := takeSeal(entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeManifest(entry, m); err != nil {
		t.Fatal(err)
	}
}

func truncateHalf(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
}

func flipByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := int64(len(b) * 3 / 4)
	overwrite(t, path, at, []byte{b[at] ^ 0x40})
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func overwrite(t *testing.T, path string, at int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
}

// TestORTWorkloads: sessions for a few queries (weights not repacked, one
// thread) and for bulk work, from the cache or not, give the same vectors
// within 1e-5, and the reference's within the bound TestEmbedMatchesReference
// sets.
func TestORTWorkloads(t *testing.T) {
	texts := make([]string, len(referenceCases))
	for i, c := range referenceCases {
		texts[i] = c.text
	}
	ref := runReference(t, tinyDir, texts, false)
	dir := tinyModel(t)
	want, _ := embedORTFor(t, dir, WorkloadBulk, texts)
	tests := []struct {
		name     string
		dir      string
		workload Workload
		cached   bool
	}{
		{"queries, graph cached", dir, WorkloadQueries, true},
		{"bulk, graph cached", dir, WorkloadBulk, true},
		{"queries, graph not cached", tinyModel(t), WorkloadQueries, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cached := embedORTFor(t, tt.dir, tt.workload, texts)
			if cached != tt.cached {
				t.Errorf("loaded from cache = %v, want %v", cached, tt.cached)
			}
			checkSameVectors(t, got, want, 1e-5)
			for i := range texts {
				if d := maxAbsDiff(got[i], ref.Vectors[i]); d > 1e-4 {
					t.Errorf("%s: max abs diff from the reference %g > 1e-4", referenceCases[i].name, d)
				}
			}
		})
	}
}

// TestSessionOptions: the query workload starts one thread and does not
// repack weights; bulk work repacks and shares the cores among the workers.
func TestSessionOptions(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	tests := []struct {
		name      string
		o         Options
		workers   int
		threads   int
		noPrepack bool
	}{
		{"bulk", Options{}, 1, cores, false},
		{"bulk, a worker per core", Options{}, cores, 1, false},
		{"queries", Options{Workload: WorkloadQueries}, 1, 1, true},
		{"queries, threads asked for", Options{Workload: WorkloadQueries, Threads: 3}, 1, 3, true},
		{"bulk, threads asked for", Options{Threads: 3}, cores, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sessionOptions(tt.o, tt.workers)
			if got.IntraOpThreads != tt.threads || got.NoPrepack != tt.noPrepack {
				t.Errorf("threads %d, no prepacking %v; want %d, %v", got.IntraOpThreads, got.NoPrepack, tt.threads, tt.noPrepack)
			}
		})
	}
}

// TestORTCacheConcurrentBuild starts processes that all open a model with
// no cache at once: each must embed correctly, and they must leave one valid
// entry and no temp folders behind.
func TestORTCacheConcurrentBuild(t *testing.T) {
	if dir := os.Getenv("TMEM_TEST_ORT_CACHE_CHILD"); dir != "" {
		concurrentChild(t, dir)
		return
	}
	lib := minilmtest.RequireORT(t)
	want, _ := embedORT(t, tinyModel(t))
	dir := tinyModel(t)
	start := filepath.Join(t.TempDir(), "start")
	const n = 4
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestORTCacheConcurrentBuild$")
		cmds[i].Env = append(os.Environ(), "TMEM_TEST_ORT_CACHE_CHILD="+dir, "TMEM_TEST_ORT_CACHE_START="+start, "TMEM_ORT_LIB="+lib)
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, start, "")
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
		line := outs[i].String()
		var got [][]float32
		if err := json.Unmarshal([]byte(line[strings.Index(line, "vectors=")+len("vectors="):strings.Index(line, "\n")]), &got); err != nil {
			t.Fatalf("process %d output: %v\n%s", i, err, line)
		}
		checkSameVectors(t, got, want, 1e-6)
	}
	checkOneValidEntry(t, dir)
	if _, cached := embedORT(t, dir); !cached {
		t.Error("the entry the processes left is not used")
	}
}

// concurrentChild is TestORTCacheConcurrentBuild's child: it waits for the
// start file, embeds and prints the vectors.
func concurrentChild(t *testing.T, dir string) {
	start := os.Getenv("TMEM_TEST_ORT_CACHE_START")
	for i := 0; ; i++ {
		if _, err := os.Stat(start); err == nil {
			break
		}
		if i == 10000 {
			t.Fatal("no start signal")
		}
		time.Sleep(time.Millisecond)
	}
	vecs, _ := embedORT(t, dir)
	b, err := json.Marshal(vecs)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("vectors=%s\n", b)
}

// TestVerifyORTCache: the full check finds what the stamp check on a session
// start cannot, content that no longer matches its manifest under the same
// stat data (bits rotting on disk, here played by a manifest whose weights
// sum is off), removes that entry, and leaves a sound one alone.
func TestVerifyORTCache(t *testing.T) {
	tests := []struct {
		name    string
		rot     bool
		removed int
	}{
		{"sound entry", false, 0},
		{"weights rotted under the same stamp", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tinyModel(t)
			want, _ := embedORT(t, dir)
			entry := checkOneValidEntry(t, dir)
			if tt.rot {
				m, err := readManifest(entry)
				if err != nil {
					t.Fatal(err)
				}
				rec := m.Files[entryModel]
				rec.SHA256 = strings.Repeat("0", 64)
				m.Files[entryModel] = rec
				if err := writeManifest(entry, m); err != nil {
					t.Fatal(err)
				}
				if _, cached := embedORT(t, dir); !cached {
					t.Fatal("a session start hashed an entry whose stamps match; the test no longer shows the full check's use")
				}
			}
			got, err := VerifyORTCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Removed) != tt.removed || got.Verified != 1-tt.removed {
				t.Errorf("VerifyORTCache = %+v, want %d removed", got, tt.removed)
			}
			vecs, cached := embedORT(t, dir)
			if cached != !tt.rot {
				t.Errorf("next start loaded from cache = %v, want %v", cached, !tt.rot)
			}
			checkSameVectors(t, vecs, want, 1e-6)
			checkOneValidEntry(t, dir)
		})
	}
}

// TestSettle: once settle returns, a file written in the entry is stamped
// later than every data file's last change, here an mtime set ahead of the
// clock, so no later write can leave a data file's stamp as sealed.
func TestSettle(t *testing.T) {
	entry := t.TempDir()
	ahead := time.Now().Add(300 * time.Millisecond)
	for _, name := range entryData {
		path := filepath.Join(entry, name)
		writeFile(t, path, name)
		if err := os.Chtimes(path, ahead, ahead); err != nil {
			t.Fatal(err)
		}
	}
	if err := settle(entry); err != nil {
		t.Fatal(err)
	}
	after := filepath.Join(entry, "after")
	writeFile(t, after, "")
	fi, err := os.Stat(after)
	if err != nil {
		t.Fatal(err)
	}
	if got := changeTime(fi); got <= ahead.UnixNano() {
		t.Errorf("a file written after settle has time %d, not after the data files' %d", got, ahead.UnixNano())
	}
	if names := cacheNamesIn(t, entry); !slices.Equal(names, []string{"after", entryModel}) {
		t.Errorf("entry holds %v: settle left its probe", names)
	}
}
