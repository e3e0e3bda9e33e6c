//go:build !ort

package minilm

import "errors"

// ortAvailable reports whether this binary was built with the ort tag.
const ortAvailable = false

func newORTRunner(dir, lib string, threads int) (runner, error) {
	return nil, errors.New("built without the ort tag")
}
