// Package hashembed is a deterministic stand-in for a real embedding
// model: words and character trigrams are hashed into a fixed number of
// dimensions and the sum is L2-normalised. Texts that share words land
// close together, which is enough for tests and benchmarks of the
// vector path; it understands no meaning.
package hashembed
