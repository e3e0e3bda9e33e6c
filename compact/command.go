package compact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Command is a Summarizer that pipes the prompt to an external program
// ("claude -p", "llm", "ollama run MODEL") on stdin and reads the summary
// from its stdout.
type Command struct {
	Argv      []string
	Timeout   time.Duration // per call; 0 means 2 minutes
	Templates string        // folder of prompt template overrides; may be ""
	Env       []string      // extra environment, KEY=VALUE; nil inherits
}

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
	if c.Env != nil {
		cmd.Env = append(cmd.Environ(), c.Env...)
	}
	cmd.WaitDelay = time.Second
	cmd.Stdin = strings.NewReader(prompt)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return "", fmt.Errorf("command summarizer %s: timed out after %s", c.Argv[0], timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return "", fmt.Errorf("command summarizer %s: %w: %s", c.Argv[0], err, msg)
	}
	return cleanOutput(out.String()), nil
}
