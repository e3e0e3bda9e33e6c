package minilm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/tmemhq/tmem/internal/bytesize"
	"github.com/tmemhq/tmem/layout"
)

// File is one pinned model file.
type File struct {
	// Name is the file's name in the model folder.
	Name string `json:"name"`
	// Path is the file's path in the upstream repository.
	Path string `json:"path"`
	// Size is its length in bytes; 0 means the length is not pinned and
	// the sha256 alone identifies the file.
	Size int64 `json:"size"`
	// SHA256 is its hex sha256.
	SHA256 string `json:"sha256"`
}

// Manifest pins a model: where it comes from and the exact bytes expected.
type Manifest struct {
	// Repo is the upstream repository, owner/name.
	Repo string
	// Revision is the upstream commit the files are pinned to.
	Revision string
	Files    []File
	// Int8 are the int8 exports of the model, best first; Variant puts one
	// in place of model.onnx.
	Int8 []Int8File
}

// Pinned is sentence-transformers/all-MiniLM-L6-v2 at a fixed commit, with
// the fp32 ONNX export saved as model.onnx at the folder root.
var Pinned = Manifest{
	Repo:     "sentence-transformers/all-MiniLM-L6-v2",
	Revision: "fa97f6e7cb1a59073dff9e6b13e2715cf7475ac9",
	Files: []File{
		{"config.json", "config.json", 612, "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"},
		{"tokenizer.json", "tokenizer.json", 466247, "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"},
		{"vocab.txt", "vocab.txt", 231508, "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"},
		{"tokenizer_config.json", "tokenizer_config.json", 350, "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"},
		{"special_tokens_map.json", "special_tokens_map.json", 112, "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"},
		{"model.onnx", "onnx/model.onnx", 90405214, "6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452"},
	},
	Int8: []Int8File{
		{"avx512_vnni", File{"model_qint8_avx512_vnni.onnx", "onnx/model_qint8_avx512_vnni.onnx", 23026053, "4278337fd0ff3c68bfb6291042cad8ab363e1d9fbc43dcb499fe91c871902474"}},
		{"avx2", File{"model_quint8_avx2.onnx", "onnx/model_quint8_avx2.onnx", 23046789, "b941bf19f1f1283680f449fa6a7336bb5600bdcd5f84d10ddc5cd72218a0fd21"}},
	},
}

// DefaultBaseURL is where Pull downloads from unless told otherwise.
const DefaultBaseURL = "https://huggingface.co"

// PullOptions configure Pull.
type PullOptions struct {
	// BaseURL is the model hub; empty means DefaultBaseURL. Files are fetched
	// from BaseURL/Repo/resolve/Revision/Path.
	BaseURL string
	// Dir is the model folder to fill.
	Dir string
	// Manifest pins the files; nil means Pinned.
	Manifest *Manifest
	// Progress receives one line per file and per tenth of a large download;
	// nil discards it.
	Progress io.Writer
	// HTTPClient makes the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// IdleTimeout is how long to wait for the server's next byte; 0 means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Variant is VariantFP32 (the default) or VariantInt8.
	Variant string
	// CPU picks the int8 export; nil means HostCPU().
	CPU *CPUFeatures

	// slow is the slowest a download may arrive; zero means
	// defaultSpeedLimit. Tests set short windows.
	slow speedLimit
}

// Errors a Pull may wrap, so callers can say what to do.
var (
	// ErrDownload means a file could not be fetched: the hub is
	// unreachable or answered with an error status.
	ErrDownload = errors.New("download failed")
	// ErrWrongFile means the hub served a file that is not the pinned one
	// (another size or sha256); it was deleted.
	ErrWrongFile = errors.New("not the pinned file")
	// ErrPullRunning means another pull or install is filling the folder.
	ErrPullRunning = errors.New("another pull is filling the folder")
)

// Pull downloads the pinned model files of o.Variant into o.Dir and makes
// that variant the one Open runs. Files already present with the right sum
// are kept; a partial download (name.part) is resumed with an HTTP Range
// request. Each file is checked against its pinned size and sha256 before it
// takes its final name; a wrong file is deleted. When nothing was
// downloaded, the folders Pull created are removed again.
func Pull(ctx context.Context, o PullOptions) (err error) {
	m := Pinned
	if o.Manifest != nil {
		m = *o.Manifest
	}
	m, err = m.Variant(o.Variant, hostOr(o.CPU))
	if err != nil {
		return fmt.Errorf("pull model: %w", err)
	}
	base := strings.TrimRight(o.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	client := newFetcher(o.HTTPClient, o.IdleTimeout, o.slow, 0)
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	top, err := mkdirAll(o.Dir)
	if err != nil {
		return fmt.Errorf("pull model: %w", err)
	}
	defer func() {
		if err != nil {
			removeEmpty(o.Dir, top)
		}
	}()
	unlock, err := lockPull(o.Dir)
	if err != nil {
		return fmt.Errorf("pull model: %w", err)
	}
	defer unlock()
	for _, f := range m.Files {
		dest := filepath.Join(o.Dir, f.Name)
		if err := verifyFile(dest, f); err == nil {
			fmt.Fprintf(progress, "%s: already present, sum ok\n", f.Name)
			continue
		}
		url := base + "/" + m.Repo + "/resolve/" + m.Revision + "/" + f.Path
		if err := download(ctx, client, url, dest, f, progress); err != nil {
			return fmt.Errorf("pull %s: %w", f.Name, err)
		}
		fmt.Fprintf(progress, "%s: ok (%s, sha256 %s)\n", f.Name, bytesize.Format(f.Size), f.SHA256[:12])
	}
	return setActiveModel(o.Dir, m.modelFile())
}

// hostOr is *c, or the running CPU's features when c is nil.
func hostOr(c *CPUFeatures) CPUFeatures {
	if c == nil {
		return HostCPU()
	}
	return *c
}

// mkdirAll creates dir and returns the topmost folder it had to create
// ("" when dir existed).
func mkdirAll(dir string) (string, error) {
	top := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		top = d
	}
	return top, os.MkdirAll(dir, 0o755)
}

// pullLockName is the lock file a pull holds in the folder it fills.
const pullLockName = ".tmem-pull.lock"

// lockPull takes dir's pull lock, or fails at once with ErrPullRunning
// when another pull or install holds it. Two of them writing the same
// .part files would let one rename a file the other still appends to,
// past its verified end; each hashes what it receives, not what lands on
// disk, so neither would notice. The returned func releases the lock.
func lockPull(dir string) (func(), error) {
	path := filepath.Join(dir, pullLockName)
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		// Opening a named pipe would block; a link is not tmem's.
		return nil, fmt.Errorf("lock %s: %w", path, layout.ErrNotRegular)
	}
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s is held by another 'tmem model pull'; let it finish, then run this again", ErrPullRunning, path)
	}
	removeStaleTemps(dir, time.Now())
	return func() { fl.Unlock() }, nil
}

// staleTempAge is how old a temp file of an atomic write in a folder a
// pull fills must be before the next pull removes it: under the pull lock
// it can only be a killed pull's, but a process that opens the model may
// be writing a cache file beside it just now.
const staleTempAge = 10 * time.Minute

// removeStaleTemps removes the temp files that killed atomic writes left
// in dir (a library of hundreds of MiB, a stamp), once staleTempAge old.
func removeStaleTemps(dir string, now time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !layout.IsTempName(e.Name()) {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) >= staleTempAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// removeEmpty removes dir and its parents up to top while they are empty,
// so a failed pull leaves no empty model folder behind; dir's pull lock
// goes first.
func removeEmpty(dir, top string) {
	if top == "" {
		return
	}
	os.Remove(filepath.Join(dir, pullLockName))
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if os.Remove(d) != nil || d == top {
			return
		}
	}
}

// download fetches url into dest via dest.part, resuming what is there.
// When f.Size is 0 the length is not pinned: the server's length is taken,
// and the sha256 alone decides.
func download(ctx context.Context, client fetcher, url, dest string, f File, progress io.Writer) error {
	part := dest + ".part"
	most := f.Size
	if most == 0 {
		most = client.max
	}
	have, h, err := resumable(part, most)
	if err != nil {
		return err
	}
	size := f.Size
	switch {
	case f.Size == 0 && have > 0 && hex.EncodeToString(h.Sum(nil)) == f.SHA256:
		size = have // an earlier run got all of it
	case f.Size == 0 || have < f.Size:
		have, h, size, err = fetch(ctx, client, url, part, have, h, f, progress)
		if errors.Is(err, errRangeRefused) {
			// The server's file ends at or before what the partial file
			// holds, so that cannot be the start of the pinned file (or the
			// server's file changed): start over.
			fmt.Fprintf(progress, "%s: the server refused to resume at %s; starting over\n", f.Name, bytesize.Format(have))
			if err := os.Remove(part); err != nil {
				return err
			}
			have, h, size, err = fetch(ctx, client, url, part, 0, sha256.New(), f, progress)
		}
		if err != nil {
			return err
		}
		if size < 0 {
			size = have // unpinned and unannounced: the body ended cleanly
		}
	}
	if have > size {
		return errors.Join(fmt.Errorf("%w: the server sent more than the expected %d bytes; the download was deleted", ErrWrongFile, size), os.Remove(part))
	}
	if have != size {
		return fmt.Errorf("download incomplete: %s; run 'tmem model pull' again to resume", ofTotal(have, size))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 {
		rmErr := os.Remove(part)
		return errors.Join(fmt.Errorf("%w: sha256 mismatch: got %s, want %s; the download was deleted", ErrWrongFile, got, f.SHA256), rmErr)
	}
	if err := os.Rename(part, dest); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	return nil
}

// maxUnpinnedSize bounds a download whose length is not pinned, an ONNX
// Runtime archive (the Linux x86-64 library, 33 MB, gzips to 12 MB): its
// sha256 alone would refuse an endless body only after writing it.
const maxUnpinnedSize = 256 << 20

// errRangeRefused is a 416 answer to a resume: nothing lies past the offset.
var errRangeRefused = errors.New("range not satisfiable")

// fetch appends the bytes from offset have onwards to part. It returns the
// new length, the hash of the whole part file and the length the file must
// have (f.Size, else the server's, else -1). A server whose file has another
// length than the pin, or is longer than client.max when none is pinned, is
// refused before anything is written, and the partial file is deleted.
func fetch(ctx context.Context, client fetcher, url, part string, have int64, h hash.Hash, f File, progress io.Writer) (int64, hash.Hash, int64, error) {
	ctx, w, stop := watch(ctx, client)
	defer stop()
	resp, err := get(ctx, client.client, url, have)
	if err != nil {
		return have, h, -1, w.explain(ctx, err, url)
	}
	defer resp.Body.Close()
	flags := os.O_WRONLY | os.O_CREATE
	total := int64(-1) // the server's whole file, when it says
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		var start int64
		start, total = contentRange(resp.Header.Get("Content-Range"))
		if start != have {
			return have, h, -1, errors.Join(fmt.Errorf("%w: GET %s: asked to resume at byte %d, the server sent byte %d on; the partial download was deleted", ErrDownload, url, have, start), os.Remove(part))
		}
		flags |= os.O_APPEND
		fmt.Fprintf(progress, "%s: resuming at %s\n", f.Name, bytesize.Format(have))
	case resp.StatusCode == http.StatusOK:
		// The server ignored the Range header (or there was none): start over.
		flags |= os.O_TRUNC
		have, h, total = 0, sha256.New(), resp.ContentLength
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		return have, h, -1, errRangeRefused
	default:
		return have, h, -1, fmt.Errorf("%w: GET %s: %s", ErrDownload, url, resp.Status)
	}
	want, err := expectedLength(f, total, client.max, part)
	if err != nil {
		return have, h, want, err
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return have, h, want, err
	}
	limit := client.max
	if want >= 0 {
		limit = want
	}
	pw := &progressWriter{w: progress, name: f.Name, total: want, done: have}
	// Never read past the expected size: a longer body is wrong anyway.
	n, copyErr := io.Copy(io.MultiWriter(out, h, pw), io.LimitReader(w.body(resp.Body), limit-have+1))
	copyErr = w.explain(ctx, copyErr, url)
	have += n
	if err := out.Close(); err != nil && copyErr == nil {
		copyErr = err
	}
	if copyErr != nil {
		return have, h, want, fmt.Errorf("download interrupted at %s (run 'tmem model pull' again to resume): %w", ofTotal(have, want), copyErr)
	}
	return have, h, want, checkEnd(resp, have, want, client.max, part)
}

// expectedLength is the length the file must have: f.Size, else the
// server's total (-1 when it does not say). A server whose file has
// another length than the pin, or one longer than most when there is no
// pin, is refused and the partial file deleted.
func expectedLength(f File, total, most int64, part string) (int64, error) {
	want := f.Size
	if want == 0 {
		want = total
	}
	var err error
	switch {
	case f.Size == 0 && total > most:
		err = fmt.Errorf("%w: the server's file is %d bytes, too large: more than %s, the most a download without a pinned size may be; nothing was kept", ErrWrongFile, total, bytesize.Format(most))
	case total >= 0 && total != want:
		err = fmt.Errorf("%w: the server's file is %d bytes, the pinned one %d; nothing was kept", ErrWrongFile, total, f.Size)
	default:
		return want, nil
	}
	rmErr := os.Remove(part)
	if errors.Is(rmErr, fs.ErrNotExist) {
		rmErr = nil
	}
	return want, errors.Join(err, rmErr)
}

// checkEnd refuses, deleting the partial file, a body that ran past most
// with no length to expect, or one that ended cleanly short of want where
// its end is marked (a length, the last chunk, an HTTP/2 stream end): it
// held the server's whole file.
func checkEnd(resp *http.Response, have, want, most int64, part string) error {
	if want < 0 && have > most {
		return errors.Join(fmt.Errorf("%w: the server sent more than %s, too large for a download without a pinned size; the download was deleted", ErrWrongFile, bytesize.Format(most)), os.Remove(part))
	}
	delimited := resp.ContentLength >= 0 || len(resp.TransferEncoding) > 0 || resp.ProtoMajor >= 2
	if have < want && delimited {
		return errors.Join(fmt.Errorf("%w: the server's file ended at %d bytes, the pinned one has %d; nothing was kept", ErrWrongFile, have, want), os.Remove(part))
	}
	return nil
}

// get sends a GET for url, asking for the bytes from offset have on.
func get(ctx context.Context, client *http.Client, url string, have int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %w", ErrDownload, err)
	}
	return resp, nil
}

// ofTotal is "N of M bytes", or "N bytes" when M is unknown.
func ofTotal(have, total int64) string {
	if total < 0 {
		return fmt.Sprintf("%d bytes", have)
	}
	return fmt.Sprintf("%d of %d bytes", have, total)
}

// contentRange reads "bytes START-END/TOTAL"; TOTAL is -1 when unknown
// ("*") and START is -1 when the header does not parse.
func contentRange(v string) (start, total int64) {
	rng, size, ok := strings.Cut(strings.TrimPrefix(v, "bytes "), "/")
	first, _, ok2 := strings.Cut(rng, "-")
	start, err := strconv.ParseInt(first, 10, 64)
	if !ok || !ok2 || err != nil {
		return -1, -1
	}
	if total, err = strconv.ParseInt(size, 10, 64); err != nil {
		total = -1
	}
	return start, total
}

// clearPart removes whatever is at a partial file's name unless it is a
// regular file. The name is tmem's own: a symlink there would have the
// download append to, or truncate, a file outside the model folder, and a
// named pipe would block it. A folder there is an error naming it.
func clearPart(part string) error {
	st, err := os.Lstat(part)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode().IsRegular():
		return nil
	case st.IsDir():
		return fmt.Errorf("%s: %w (a folder); remove it and pull again", part, layout.ErrNotRegular)
	}
	return os.Remove(part)
}

// resumable returns the length and hash of the partial file at part, which
// a download resumes. One longer than most, the longest the file can be,
// is not the start of it and is removed, as is anything but a regular file.
func resumable(part string, most int64) (int64, hash.Hash, error) {
	if err := clearPart(part); err != nil {
		return 0, nil, err
	}
	if st, err := os.Lstat(part); err == nil && st.Size() > most {
		// Removed unread: hashing what cannot be the file is wasted work.
		return 0, sha256.New(), os.Remove(part)
	}
	h := sha256.New()
	have, err := hashExisting(part, h)
	if err != nil || have <= most {
		return have, h, err
	}
	return 0, sha256.New(), os.Remove(part) // it grew since
}

// hashExisting feeds an existing partial file to h and returns its length.
func hashExisting(path string, h hash.Hash) (int64, error) {
	f, err := layout.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(h, f)
}

// progressWriter prints a line each time another tenth of a large file arrives.
type progressWriter struct {
	w           io.Writer
	name        string
	total, done int64
	lastTenth   int64
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.done += int64(len(b))
	if p.total >= 1<<20 {
		if tenth := p.done * 10 / p.total; tenth > p.lastTenth && tenth <= 10 {
			p.lastTenth = tenth
			fmt.Fprintf(p.w, "%s: %s of %s (%d%%)\n", p.name, bytesize.Format(p.done), bytesize.Format(p.total), tenth*10)
		}
	}
	return len(b), nil
}

// verifyFile checks a file's size and sha256 against f.
func verifyFile(path string, f File) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if f.Size > 0 && st.Size() != f.Size {
		return fmt.Errorf("%s: size %d, want %d (truncated or wrong file)", path, st.Size(), f.Size)
	}
	sum, _, err := fileSum(path)
	if err != nil {
		return err
	}
	if sum != f.SHA256 {
		return fmt.Errorf("%s: sha256 %s, want %s (wrong file)", path, sum, f.SHA256)
	}
	return nil
}

// Install copies the pinned model files of a variant (VariantFP32 or
// VariantInt8, picked for the running CPU) from a folder (for machines
// without network access) into dir; see Manifest.Install.
func Install(from, dir, variant string) error {
	m, err := Pinned.Variant(variant, HostCPU())
	if err != nil {
		return fmt.Errorf("install model: %w", err)
	}
	return m.Install(from, dir)
}

// Install copies m's files from the folder from into dir and makes m's model
// file the one Open runs. Each file is looked up by its Name, then by its
// upstream Path (so a clone of the upstream repository works). Every source
// is checked first; if any is missing or wrong nothing is installed.
func (m Manifest) Install(from, dir string) error {
	srcs := make([]string, len(m.Files))
	var bad []error
	for i, f := range m.Files {
		src := filepath.Join(from, f.Name)
		if _, err := os.Stat(src); err != nil && f.Path != f.Name {
			src = filepath.Join(from, filepath.FromSlash(f.Path))
		}
		if err := verifyFile(src, f); err != nil {
			bad = append(bad, err)
			continue
		}
		srcs[i] = src
	}
	if len(bad) > 0 {
		return fmt.Errorf("install model from %s: nothing installed: %w", from, errors.Join(bad...))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("install model: %w", err)
	}
	unlock, err := lockPull(dir)
	if err != nil {
		return fmt.Errorf("install model: %w", err)
	}
	defer unlock()
	for i, f := range m.Files {
		if err := copyVerified(srcs[i], filepath.Join(dir, f.Name), f); err != nil {
			return fmt.Errorf("install model %s: %w", f.Name, err)
		}
	}
	return setActiveModel(dir, m.modelFile())
}

// copyVerified copies src to dest through a temporary file that is renamed
// only once its sum is right.
func copyVerified(src, dest string, f File) error {
	in, err := layout.OpenRegular(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dest + ".part"
	if err := clearPart(tmp); err != nil {
		return err
	}
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && (n != f.Size || hex.EncodeToString(h.Sum(nil)) != f.SHA256) {
		err = fmt.Errorf("%s changed while copying", src)
	}
	if err != nil {
		return errors.Join(err, os.Remove(tmp))
	}
	return os.Rename(tmp, dest)
}

// FileStatus is one pinned file as found in a model folder.
type FileStatus struct {
	File
	// Present is false when the file is missing.
	Present bool `json:"present"`
	// GotSize and GotSHA256 describe the file on disk.
	GotSize   int64  `json:"got_size"`
	GotSHA256 string `json:"got_sha256"`
	// OK means the file matches its pin.
	OK bool `json:"ok"`
}

// ModelInfo describes a model folder.
type ModelInfo struct {
	Dir      string `json:"dir"`
	Repo     string `json:"repo"`
	Revision string `json:"revision"`
	// Model is the model file Open runs: model.onnx, or an int8 export.
	Model string       `json:"model"`
	Files []FileStatus `json:"files"`
	// Complete means every pinned file is present and matches.
	Complete bool `json:"complete"`
	// Identity is what an Embedder on this folder reports; empty when the
	// folder cannot be loaded.
	Identity string `json:"identity"`
}

// Info checks the folder dir against the pinned manifest.
func Info(dir string) (ModelInfo, error) {
	return Pinned.Info(dir)
}

// Info checks the folder dir against m, with the int8 export in place of
// model.onnx when that is the folder's variant.
func (m Manifest) Info(dir string) (ModelInfo, error) {
	m, err := m.forFolder(dir)
	if err != nil {
		return ModelInfo{}, fmt.Errorf("model info: %w", err)
	}
	info := ModelInfo{Dir: dir, Repo: m.Repo, Revision: m.Revision, Model: m.modelFile(), Complete: true}
	for _, f := range m.Files {
		st := FileStatus{File: f}
		sum, n, err := fileSum(filepath.Join(dir, f.Name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return info, fmt.Errorf("model info: %w", err)
		default:
			st.Present, st.GotSize, st.GotSHA256 = true, n, sum
			st.OK = n == f.Size && sum == f.SHA256
		}
		info.Complete = info.Complete && st.OK
		info.Files = append(info.Files, st)
	}
	if checkModelDir(dir) == nil {
		if id, err := identity(dir); err == nil {
			info.Identity = id
		}
	}
	return info, nil
}
