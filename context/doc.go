// Package context builds the token-budgeted prompt stack that is injected
// before every task. Import it under the alias memctx where the standard
// library's context is also needed.
package context
