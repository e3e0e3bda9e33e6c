package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// interruptedError is the error of a command that SIGINT or SIGTERM
// stopped; it exits 128 plus the signal's number, as a shell reports a
// program the signal killed.
type interruptedError struct{ sig os.Signal }

func (e interruptedError) Error() string {
	switch e.sig {
	case os.Interrupt:
		return "stopped by SIGINT"
	case syscall.SIGTERM:
		return "stopped by SIGTERM"
	}
	return fmt.Sprintf("stopped by signal %v", e.sig)
}

// code is the exit code for the signal.
func (e interruptedError) code() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitFailure
}

// signalGrace is how long a command may take to stop at a safe point
// after SIGINT or SIGTERM before the process exits anyway (every write is
// atomic and compaction is journalled, so that is safe too).
const signalGrace = 5 * time.Second

// stopOnSignal returns a context that SIGINT or SIGTERM cancels, so that
// a command can stop what it started (a summarizer program and its
// children) and leave its files at a safe point before it exits. If the
// command has not returned signalGrace later, or a second signal comes,
// the process exits at once. stop releases the signals.
func (f *factory) stopOnSignal(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-ch:
			cancel(interruptedError{sig})
		case <-done:
			return
		}
		if !waitSecondSignal(ch, done, time.Now()) {
			return
		}
		ie := interruptedError{sig}
		fmt.Fprintf(f.stderr, "tmem: %v, exiting before the command reached a safe point\n", ie)
		os.Exit(ie.code())
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// signalEcho is how soon after the first a second signal is the same
// stop sent twice: timeout(1) signals its child, then the child's process
// group, which holds it again, in the same instant. A person who presses
// Ctrl-C twice takes longer.
const signalEcho = 200 * time.Millisecond

// waitSecondSignal waits for a signal on ch that is not the first one's
// echo (see signalEcho), or for signalGrace after first; false when done
// closes first (the command stopped by itself).
func waitSecondSignal(ch <-chan os.Signal, done <-chan struct{}, first time.Time) bool {
	grace := time.After(signalGrace)
	for {
		select {
		case <-ch:
			if time.Since(first) >= signalEcho {
				return true
			}
		case <-grace:
			return true
		case <-done:
			return false
		}
	}
}

// interrupted returns the interruptedError that cancelled ctx, or nil.
func interrupted(ctx context.Context) error {
	var ie interruptedError
	if errors.As(context.Cause(ctx), &ie) {
		return ie
	}
	return nil
}
