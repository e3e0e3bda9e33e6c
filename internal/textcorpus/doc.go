// Package textcorpus holds text of the kinds tokenizers treat differently
// (scripts, CJK, emoji, marks, long words, white space runs, invalid
// UTF-8, random mixes, real memory files), for the tests that check a
// tokenizer of tmem's against the reference it replaces. Each test adds
// the kinds its own tokenizer cares about.
package textcorpus
