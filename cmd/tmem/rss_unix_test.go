//go:build !windows

package main

import (
	"os"
	"syscall"
)

// peakRSS is an ended process's peak resident set, in KiB on Linux.
func peakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return ru.Maxrss, true
}
