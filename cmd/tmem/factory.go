package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
)

// factory carries the global flags and IO streams to every command, and
// builds what commands share (the workspace, the clock) on demand.
type factory struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string

	dir     string
	json    bool
	now     string
	quiet   bool
	verbose bool
	model   string
	// lockWait is --lock-wait (else TMEM_LOCK_WAIT), read by
	// checkGlobalFlags: 0 when neither is given, each wait its default.
	lockWait     time.Duration
	lockWaitFlag string

	started time.Time // when the factory, and so the process, started
	stages  *stages   // set by startTiming under -v
}

func newFactory(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *factory {
	return &factory{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, started: time.Now()}
}

// Workspace opens --dir, else TMEM_DIR, else the nearest .teammates above
// the working directory. Its teammate list is kept between the calls of
// one command (the context builder, recall and a server each ask for it).
func (f *factory) Workspace() (*layout.Workspace, error) {
	ws, err := f.openWorkspace()
	if err != nil {
		return nil, err
	}
	ws.CacheTeammates(time.Now)
	ws.LockWait = f.lockWait
	if !f.quiet {
		ws.Notices = f.stderr // a wait for another process's lock
	}
	return ws, nil
}

func (f *factory) openWorkspace() (*layout.Workspace, error) {
	dir := f.dir
	if dir == "" {
		dir = f.getenv("TMEM_DIR")
	}
	if dir != "" {
		return layout.Open(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return layout.Find(wd)
}

// nowText is --now, else TMEM_NOW, and which of them it came from.
func (f *factory) nowText() (s, from string) {
	if f.now != "" {
		return f.now, "--now"
	}
	return f.getenv("TMEM_NOW"), "$TMEM_NOW"
}

// ClockIn is Clock for a command that reads the time in loc (--tz): a
// --now given as a day is that day's midday in loc, not in the local
// zone, so that the day stays the one given even 13 hours away.
func (f *factory) ClockIn(loc *time.Location) (func() time.Time, error) {
	clock, err := f.Clock()
	if s, _ := f.nowText(); err != nil || !isDay(s) {
		return clock, err
	}
	y, m, d := clock().Date()
	at := time.Date(y, m, d, 12, 0, 0, 0, loc)
	return func() time.Time { return at }, nil
}

func isDay(s string) bool {
	_, err := time.Parse(layout.DateLayout, s)
	return err == nil
}

// Now returns --now, else TMEM_NOW, else the wall clock.
func (f *factory) Now() (time.Time, error) {
	s, from := f.nowText()
	if s == "" {
		return time.Now(), nil
	}
	return parseTime(from, s)
}

// parseTime reads flag's value, a time in RFC 3339 or a date (read as
// its midday), in the years 1 to 9999 that file names can carry.
func parseTime(flag, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		d, derr := time.ParseInLocation(layout.DateLayout, s, time.Local)
		if derr != nil {
			return time.Time{}, usageErrorf("%s %q: want RFC 3339 (2026-03-14T09:30:00Z) or YYYY-MM-DD", flag, s)
		}
		t = d.Add(12 * time.Hour) // midday: the date stays put in any nearby zone
	}
	if !inYearRange(t) || !inYearRange(t.UTC()) || !inYearRange(t.Local()) {
		return time.Time{}, usageErrorf("%s %q: want a time in the years 1 to 9999", flag, s)
	}
	return t, nil
}

func inYearRange(t time.Time) bool { return t.Year() >= 1 && t.Year() <= 9999 }

// Clock returns a clock for library options: fixed under --now.
func (f *factory) Clock() (func() time.Time, error) {
	t, err := f.Now()
	if err != nil {
		return nil, err
	}
	if f.now == "" && f.getenv("TMEM_NOW") == "" {
		return time.Now, nil
	}
	return func() time.Time { return t }, nil
}

// printJSON writes v as indented JSON on stdout: the one place --json
// output is produced.
func (f *factory) printJSON(v interface{}) error {
	enc := json.NewEncoder(f.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// warnf prints a warning on stderr unless --quiet.
func (f *factory) warnf(format string, args ...interface{}) {
	if !f.quiet {
		fmt.Fprintf(f.stderr, "tmem: "+format+"\n", args...)
	}
}

// errorf prints an error line on stderr, under --quiet too: one of
// several errors a command reports before its own.
func (f *factory) errorf(format string, args ...interface{}) {
	fmt.Fprintf(f.stderr, "tmem: "+format+"\n", args...)
}

// infof prints progress detail on stderr under --verbose.
func (f *factory) infof(format string, args ...interface{}) {
	if f.verbose && !f.quiet {
		fmt.Fprintf(f.stderr, format+"\n", args...)
	}
}

// readArg returns the text argument, reading stdin when it is "-": at
// most layout.MaxFileSize bytes, as no memory file holds more.
func (f *factory) readArg(args []string) (string, error) {
	if len(args) == 0 {
		return "", nil
	}
	if len(args) == 1 && args[0] == "-" {
		b, err := io.ReadAll(io.LimitReader(f.stdin, layout.MaxFileSize+1))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if len(b) > layout.MaxFileSize {
			return "", fmt.Errorf("stdin holds over %d MiB, the limit for memory files: give less text", layout.MaxFileSize>>20)
		}
		return string(b), nil
	}
	return strings.Join(args, " "), nil
}

// Exit codes, listed in `tmem --help`.
const (
	exitOK          = 0
	exitFailure     = 1 // findings, or a command that failed
	exitUsage       = 2
	exitNoWorkspace = 3
	exitLocked      = 4 // another process holds the lock (tmem compact)
)

const exitCodesHelp = `Exit codes:
  0  success
  1  failure, or findings (tmem doctor)
  2  usage error (bad flag, argument or name)
  3  no workspace found (run 'tmem init')
  4  locked: another tmem compact is running on this workspace, or another
     tmem process held a teammate or an index past the wait
  130, 143  stopped by SIGINT or SIGTERM
`

type usageError struct{ error }

// hintedError carries a line that tells the user what to do about err.
type hintedError struct {
	error
	hint string
}

func (e hintedError) Unwrap() error { return e.error }

func usageErrorf(format string, args ...interface{}) error {
	return usageError{fmt.Errorf(format, args...)}
}

// errFindings means the command printed its findings and must exit 1.
var errFindings = errors.New("findings")

// errLocked is wrapped by commands that found their lock taken.
var errLocked = errors.New("locked")

// exitCode maps an error to the process exit code and prints it with a
// hint: the one place that does.
func (f *factory) exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errFindings) {
		return exitFailure
	}
	fmt.Fprintf(f.stderr, "tmem: %v\n", err)
	var he hintedError
	if errors.As(err, &he) {
		fmt.Fprintf(f.stderr, "hint: %s\n", he.hint)
	}
	var ue usageError
	var ut *layout.UnknownTeammateError
	var ie interruptedError
	switch {
	case errors.As(err, &ie):
		return ie.code()
	case errors.Is(err, layout.ErrNotOwned):
		return exitNoWorkspace
	case errors.Is(err, layout.ErrNoWorkspace):
		fmt.Fprintf(f.stderr, "hint: run 'tmem init' to create one, or pass --dir PATH\n")
		return exitNoWorkspace
	case errors.Is(err, errLocked), errors.Is(err, recall.ErrLocked), errors.Is(err, layout.ErrLocked):
		return exitLocked
	case errors.As(err, &ut) && ut.Why != nil:
		return exitFailure
	case errors.As(err, &ue), errors.As(err, &ut):
		return exitUsage
	}
	return exitFailure
}

// internalError reports a recovered panic: one line, the stack only under
// -v, and exit 1.
func (f *factory) internalError(r interface{}, stack []byte) int {
	fmt.Fprintf(f.stderr, "tmem: internal error: %v (this is a bug in tmem %s; please report it", r, version())
	if f.verbose {
		fmt.Fprintf(f.stderr, ")\n%s", stack)
	} else {
		fmt.Fprintf(f.stderr, " with the stack that -v prints)\n")
	}
	return exitFailure
}

// teammate checks a --teammate value: a malformed name is a usage error,
// an unknown one lists the known teammates.
func (f *factory) teammate(ws *layout.Workspace, name string) (layout.Teammate, error) {
	if err := teammateFlag(name); err != nil {
		return layout.Teammate{}, err
	}
	return ws.Teammate(name)
}

var errNoTeammate = errors.New("--teammate is required")

// teammateFlag checks a --teammate value without a workspace: it is
// required, and a malformed name is a usage error.
func teammateFlag(name string) error {
	if name == "" {
		return usageError{errNoTeammate}
	}
	if err := layout.ValidateName(name); err != nil {
		return usageError{err}
	}
	return nil
}

// workspaceFor opens the workspace and checks the --teammate value in it.
func (f *factory) workspaceFor(name string) (*layout.Workspace, error) {
	ws, err := f.Workspace()
	if err != nil {
		return nil, err
	}
	if _, err := f.teammate(ws, name); err != nil {
		return nil, err
	}
	return ws, nil
}

// readLockWait reads --lock-wait, else TMEM_LOCK_WAIT, into f.lockWait: a
// duration of 0 or more. 0 tries once: the libraries read 0 as their
// default, so it is kept as the shortest wait there is.
func (f *factory) readLockWait() error {
	s, from := f.lockWaitFlag, "--lock-wait"
	if s == "" {
		s, from = f.getenv("TMEM_LOCK_WAIT"), "TMEM_LOCK_WAIT"
	}
	if s == "" {
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return usageErrorf("%s %q: want a duration of 0 or more, such as 5s or 2m", from, s)
	}
	f.lockWait = max(d, time.Nanosecond)
	return nil
}
