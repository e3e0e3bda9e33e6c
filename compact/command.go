package compact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/tmemhq/tmem/templates"
)

// Command is a Summarizer that pipes the prompt to an external program
// ("claude -p", "llm", "ollama run MODEL") on stdin and reads the summary
// from its stdout. The program runs in its own process group, which is
// killed whole on timeout or when its output goes over the cap.
type Command struct {
	Argv      []string
	Timeout   time.Duration       // per call; 0 means 2 minutes
	Templates templates.Overrides // the workspace's prompt template overrides; may be nil
	Env       []string            // extra environment, KEY=VALUE; nil inherits
	Dir       string              // the folder it runs in; "" is tmem's own
}

// OutputCap is the most a model may answer for a request: a few times its
// sources, and never less than 64 KiB.
func OutputCap(req Request) int {
	n := len(req.Existing)
	for _, s := range req.Sources {
		n += len(s.Text)
	}
	return max(4*n, 64<<10)
}

// errOverCap is returned when a model's answer goes over OutputCap.
var errOverCap = errors.New("output over the cap")

// Summarize implements Summarizer.
func (c Command) Summarize(ctx context.Context, req Request) (string, error) {
	if len(c.Argv) == 0 {
		return "", errors.New("command summarizer: no command configured")
	}
	prompt, err := Prompt(c.Templates, req)
	if err != nil {
		return "", err
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	if c.Env != nil {
		cmd.Env = append(cmd.Environ(), c.Env...)
	}
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	cmd.Stdin = strings.NewReader(prompt)
	out := &capped{max: OutputCap(req), over: cancel}
	var stderr capped
	stderr.max = 4 << 10
	cmd.Stdout, cmd.Stderr = out, &stderr
	err = cmd.Run()
	switch {
	case out.exceeded():
		return "", fmt.Errorf("command summarizer %s: %w of %d bytes; stopped it", c.Argv[0], errOverCap, out.max)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("command summarizer %s: timed out after %s; stopped it and everything it started", c.Argv[0], timeout)
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return "", fmt.Errorf("command summarizer %s: %w (nothing on stderr)", c.Argv[0], err)
		}
		if len(msg) > 200 {
			msg = strings.ToValidUTF8(msg[:200], "") + "…"
		}
		return "", fmt.Errorf("command summarizer %s: %w: %s", c.Argv[0], err, msg)
	}
	return cleanOutput(out.String()), nil
}

// capped is a buffer that keeps at most max bytes; past that it calls
// over (which stops the program) and drops the rest.
type capped struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	max  int
	over func()
	hit  bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:max(room, 0)])
		if !c.hit && c.over != nil {
			c.over()
		}
		c.hit = true
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) exceeded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hit && c.over != nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
