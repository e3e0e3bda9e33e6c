package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/tmemhq/tmem/recall"
)

// progressBar draws index progress on a terminal: files, chunks,
// chunks per second and an ETA, redrawn in place.
type progressBar struct {
	w     io.Writer
	start time.Time
	last  time.Time
	drawn bool
}

// newProgress returns a progress callback when stderr is a terminal and
// output is for people (not --json, not --quiet); nil otherwise.
func (f *factory) newProgress() (*progressBar, func(recall.Progress)) {
	if f.json || f.quiet {
		return nil, nil
	}
	file, ok := f.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(file.Fd())) {
		return nil, nil
	}
	p := &progressBar{w: f.stderr, start: time.Now()}
	return p, p.update
}

func (p *progressBar) update(ev recall.Progress) {
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond && ev.Done != ev.Total {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(ev.Chunks) / el
	}
	eta := "?"
	if ev.Done > 0 && ev.Total > 0 {
		eta = (time.Duration(el/float64(ev.Done)*float64(ev.Total-ev.Done)) * time.Second).Round(time.Second).String()
	}
	const width = 24
	fill := 0
	if ev.Total > 0 {
		fill = width * ev.Done / ev.Total
	}
	scope := ev.Scope
	if scope == "" {
		scope = "shared"
	}
	unit := "files"
	if ev.Phase == "embed" {
		unit = "embedded"
	}
	fmt.Fprintf(p.w, "\r%-10s [%s%s] %s %d/%d  %d chunks  %.0f chunks/s  ETA %s\x1b[K",
		scope, strings.Repeat("#", fill), strings.Repeat("-", width-fill), unit, ev.Done, ev.Total, ev.Chunks, rate, eta)
	p.drawn = true
}

// done ends the bar's line.
func (p *progressBar) done() {
	if p != nil && p.drawn {
		fmt.Fprintln(p.w)
	}
}
