//go:build !unix

package compact

import "os/exec"

// ownGroup kills only the program itself where process groups are not
// available.
func ownGroup(cmd *exec.Cmd) {}
