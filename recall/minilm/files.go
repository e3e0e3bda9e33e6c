package minilm

import (
	"fmt"
	"io"

	"github.com/tmemhq/tmem/layout"
)

// maxSideFile bounds the small files read whole: config.json, the
// tokenizer, the sums, variant and runtime stamps, a cache manifest.
const maxSideFile = 16 << 20

// readRegular reads the regular file path whole, refusing one over
// maxSideFile bytes.
func readRegular(path string) ([]byte, error) {
	f, err := layout.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSideFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxSideFile {
		return nil, fmt.Errorf("%s is over %d MiB, too large for what it should hold", path, maxSideFile>>20)
	}
	return b, nil
}
