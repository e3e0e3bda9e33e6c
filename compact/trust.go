package compact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/tmemhq/tmem/layout"
)

// A workspace's ConfigFile travels with the memory in git, so whoever can
// change the repository can change it. Two of its settings reach beyond
// the files: compact.command runs a program, and compact.openai sends
// memory to an endpoint, with the value of an environment variable as
// its key. tmem runs neither until the user of the machine has allowed
// those settings as they are (a Trust); a change to either asks again.
// The other settings (budgets, retention) need no such leave.

// Reach is what a workspace's compact settings ask tmem to run or send
// memory to.
type Reach struct {
	Command   []string `json:"command,omitempty"`     // a program and its arguments
	BaseURL   string   `json:"base_url,omitempty"`    // an endpoint memory is sent to
	APIKeyEnv string   `json:"api_key_env,omitempty"` // the variable whose value goes with it
	// Files are the files in the project folder that the command's
	// arguments name (a script it runs): path (slash-separated, relative
	// to the project folder) to the SHA-256 of its content.
	Files map[string]string `json:"files,omitempty"`
}

// Reach returns what the settings reach beyond the workspace's files,
// files the command names aside (see ReachIn).
func (c Config) Reach() Reach {
	return Reach{Command: c.Command, BaseURL: c.OpenAI.BaseURL, APIKeyEnv: c.OpenAI.APIKeyEnv}
}

// ReachIn is Reach in ws, with the files in its project folder that the
// command's arguments name: a script in the repository ([sh,
// scripts/summarize.sh]) is changed by a commit as easily as tmem.yaml,
// so a trust covers its content too. The command runs in the project
// folder (ProjectDir), where its relative arguments are looked up here.
// What the program reads by itself is not covered.
func (c Config) ReachIn(ws *layout.Workspace) Reach {
	r := c.Reach()
	r.Files = namedFiles(ProjectDir(ws), c.Command)
	return r
}

// ProjectDir is the folder holding the workspace's .teammates folder:
// the repository a command summarizer runs in.
func ProjectDir(ws *layout.Workspace) string { return filepath.Dir(ws.Root) }

// namedFiles hashes each regular file in dir (links resolved) that an
// argument names, absolutely or relative to dir; nil when there is none.
func namedFiles(dir string, args []string) map[string]string {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	var out map[string]string
	for _, a := range args {
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		key, sum := "", ""
		if rel, in := within(root, real); in {
			key, sum = rel, contentSum(real)
		} else if rel, in := linkIn(root, dir, p); in && real != p {
			// A link in the project to a file outside it: a commit can
			// point it elsewhere, so where it leads is trusted.
			key, sum = rel, "link to "+real
		}
		if sum != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[key] = sum
		}
	}
	return out
}

// linkIn is within for p, a path not resolved, against the project
// folder as named (dir) or resolved (root).
func linkIn(root, dir, p string) (string, bool) {
	if rel, in := within(root, p); in {
		return rel, true
	}
	return within(dir, p)
}

// within returns p relative to root, slash-separated, when it is inside.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// contentSum is the SHA-256 of a regular file's content, "" for anything
// else or a file that cannot be read.
func contentSum(path string) string {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Empty reports whether the settings reach nothing.
func (r Reach) Empty() bool {
	return len(r.Command) == 0 && r.BaseURL == "" && r.APIKeyEnv == ""
}

// Digest identifies the settings: a trust given to one digest does not
// cover settings that run another program or reach another endpoint.
func (r Reach) Digest() string {
	b, _ := json.Marshal(r) // strings and a list of strings: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// String says what the settings do, for people to judge.
func (r Reach) String() string {
	var parts []string
	if len(r.Command) > 0 {
		q := make([]string, len(r.Command))
		for i, a := range r.Command {
			q[i] = strconv.Quote(a)
		}
		s := "compact.command runs [" + strings.Join(q, ", ") + "]"
		if len(r.Files) > 0 {
			s += " with " + strings.Join(slices.Sorted(maps.Keys(r.Files)), ", ") + " as they are now"
		}
		parts = append(parts, s)
	}
	if r.BaseURL != "" || r.APIKeyEnv != "" {
		s := "compact.openai sends memory to " + strconv.Quote(r.BaseURL)
		if r.APIKeyEnv != "" {
			s += " with the value of $" + r.APIKeyEnv + " as its key"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// Trust says whether the user of this machine has allowed a settings
// file to reach what it reaches: path is the file's absolute path, digest
// its Reach's Digest.
type Trust interface {
	Trusted(path, digest string) (bool, error)
}

// UntrustedError is the error of building a summarizer the machine has
// not allowed: Line is the setting's line in ConfigFile.
type UntrustedError struct {
	Path  string // the settings file, absolute
	Line  int
	Reach Reach
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("%s:%d: %s, and this machine has not trusted it", ConfigFile, e.Line, e.Reach)
}

// ConfigPath is the absolute path a workspace's ConfigFile is trusted
// under: the workspace folder with its links resolved, so that one
// workspace reached two ways is trusted once.
func ConfigPath(ws *layout.Workspace) string {
	root := ws.Root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return filepath.Join(root, ConfigFile)
}

// trusted is checkTrust for a summarizer that is to be run.
func (c Config) trusted(ws *layout.Workspace, name string, env SummarizerEnv) error {
	if env.DryRun {
		return nil
	}
	return c.checkTrust(ws, name, env.Trust)
}

// checkTrust refuses the settings behind summarizer name (command or
// openai) unless trust allows the config's reach.
func (c Config) checkTrust(ws *layout.Workspace, name string, trust Trust) error {
	r := c.ReachIn(ws)
	path := ConfigPath(ws)
	ok := false
	if trust != nil {
		var err error
		if ok, err = trust.Trusted(path, r.Digest()); err != nil {
			return err
		}
	}
	if ok {
		return nil
	}
	line := c.lines["command"]
	if name == "openai" {
		line = c.lines["openai"]
	}
	return &UntrustedError{Path: path, Line: line, Reach: r}
}

// CheckTrust reports, as a doctor finding, settings the configured
// summarizer would use that this machine has not trusted: compaction
// stops on them until they are.
func CheckTrust(ws *layout.Workspace, trust Trust) []layout.Finding {
	c, err := LoadConfig(ws)
	if err != nil || (c.Summarizer != "command" && c.Summarizer != "openai") || c.Reach().Empty() {
		return nil
	}
	var ue *UntrustedError
	if err := c.checkTrust(ws, c.Summarizer, trust); !errors.As(err, &ue) {
		if err != nil {
			return []layout.Finding{{Path: ConfigFile, Severity: layout.SevError, Message: err.Error()}}
		}
		return nil
	}
	return []layout.Finding{{Path: ConfigFile, Line: ue.Line, Severity: layout.SevWarning,
		Message: ue.Reach.String() + ": not trusted on this machine, so compaction stops until it is"}}
}

// TrustStore keeps the settings files the user of this machine has
// allowed, each under the digest of what it reached when allowed, in a
// file of the user's own (outside every workspace, where no repository
// can write it). The zero value trusts nothing.
type TrustStore struct {
	// Dir is the folder of the store's file; it is created on the
	// first Allow.
	Dir string
}

// trustFile is the store's file in TrustStore.Dir.
const trustFile = "trusted.json"

// maxTrustFile bounds the store's file: a line per workspace.
const maxTrustFile = 4 << 20

// trustRecord is the store's file.
type trustRecord struct {
	Files map[string]string `json:"files"` // settings file -> digest
}

// Trusted implements Trust.
func (s TrustStore) Trusted(path, digest string) (bool, error) {
	if s.Dir == "" {
		return false, nil
	}
	rec, err := s.read()
	if err != nil {
		return false, err
	}
	return rec.Files[path] == digest, nil
}

// Allow trusts the settings file at path as long as what it reaches has
// this digest.
func (s TrustStore) Allow(path, digest string) error {
	return s.update(func(rec *trustRecord) { rec.Files[path] = digest })
}

// Revoke takes the trust given to the settings file at path back; had
// says whether there was any.
func (s TrustStore) Revoke(path string) (had bool, err error) {
	err = s.update(func(rec *trustRecord) {
		_, had = rec.Files[path]
		delete(rec.Files, path)
	})
	return had, err
}

// update changes the store's file under its lock.
func (s TrustStore) update(change func(*trustRecord)) error {
	if s.Dir == "" {
		return errors.New("trust: no folder to keep the trusted settings in")
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	lock := flock.New(filepath.Join(s.Dir, trustFile+".lock"))
	if err := layout.WaitLock(context.Background(), lock, false, 10*time.Second, -1, nil); err != nil {
		return fmt.Errorf("trust: %s: %w", lock.Path(), err)
	}
	defer lock.Unlock()
	rec, err := s.read()
	if err != nil {
		return err
	}
	change(&rec)
	b, err := encodeTrust(rec)
	if err != nil {
		return err
	}
	if err := layout.WriteAtomic(filepath.Join(s.Dir, trustFile), b); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}

// read reads the store's file; a missing one trusts nothing.
func (s TrustStore) read() (trustRecord, error) {
	rec := trustRecord{Files: map[string]string{}}
	path := filepath.Join(s.Dir, trustFile)
	f, err := layout.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("trust: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTrustFile+1))
	if err == nil && len(b) > maxTrustFile {
		err = fmt.Errorf("over %d bytes", maxTrustFile)
	}
	if err != nil {
		return rec, fmt.Errorf("trust: %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("trust: %s: not the store's JSON (%v); remove it to trust afresh", path, err)
	}
	if rec.Files == nil {
		rec.Files = map[string]string{}
	}
	return rec, nil
}

// encodeTrust writes the record with its files in order, a line each.
func encodeTrust(rec trustRecord) ([]byte, error) {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	return append(b, '\n'), nil
}
