//go:build unix

package layout

import "syscall"

// oNonblock opens a named pipe without waiting for a writer, so that it
// can be seen for what it is and refused.
const oNonblock = syscall.O_NONBLOCK
