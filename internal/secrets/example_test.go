package secrets_test

import (
	"fmt"

	"github.com/tmemhq/tmem/internal/secrets"
)

func ExampleRedact() {
	text := "## Deploy\nThe CI password: Xk9#mQ2$vL7pZr (rotate monthly)\n"
	out, found := secrets.Redact(text)
	fmt.Print(out)
	for _, f := range found {
		fmt.Println(f)
	}
	// Output:
	// ## Deploy
	// The CI password: [REDACTED:password] (rotate monthly)
	// line 2: looks like a password (password-assignment)
}
