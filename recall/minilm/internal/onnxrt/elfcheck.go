package onnxrt

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
)

// errDamaged is wrapped by the error for a library file that cannot be
// whole.
var errDamaged = errors.New("damaged library file (truncated or overwritten); install it again")

// checkWhole refuses an ELF library whose loadable segments run past the
// end of the file, as in a truncated copy. The dynamic loader maps such a
// file without complaint, and the first touch of a page past the end kills
// the process with SIGBUS: no error to report, no fallback. Other files
// (Mach-O, or no library at all) are left to the loader, which says what
// is wrong with them.
func checkWhole(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // the loader reports a missing or unreadable file
	}
	defer f.Close()
	var magic [len(elf.ELFMAG)]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil || string(magic[:]) != elf.ELFMAG {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return fmt.Errorf("%w: %w", errDamaged, err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && p.Off+p.Filesz > uint64(st.Size()) {
			return fmt.Errorf("%w: a segment ends at byte %d, the file at %d", errDamaged, p.Off+p.Filesz, st.Size())
		}
	}
	return nil
}
