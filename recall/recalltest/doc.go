// Package recalltest holds the conformance test every recall.Embedder,
// real or fake, must pass.
package recalltest
