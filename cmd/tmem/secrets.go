package main

import (
	"errors"
	"fmt"

	"github.com/tmemhq/tmem/layout"
)

// writeOptions turns --allow-secret into layout's write options.
func writeOptions(allowSecret bool) []layout.WriteOption {
	opts := []layout.WriteOption{layout.Stamped}
	if allowSecret {
		opts = append(opts, layout.AllowSecrets)
	}
	return opts
}

// secretHint adds what to do to a refused secret.
func secretHint(err error) error {
	var se *layout.SecretError
	if errors.As(err, &se) {
		return fmt.Errorf("%w; remove it or pass --allow-secret", err)
	}
	return err
}
