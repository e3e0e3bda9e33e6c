package minilm

import "github.com/tmemhq/tmem/recall/minilm/internal/wordpiece"

// batchInput is one batch of texts as model input: token ids, attention mask
// and token type ids, each [n][seq] flattened, padded to seq.
type batchInput struct {
	n, seq           int
	ids, mask, types []int64
	masks            [][]int64 // each text's own mask, unpadded
}

// encodeBatch tokenizes texts and pads them to the longest, rounded up to a
// multiple of pad.
func encodeBatch(tk *wordpiece.Tokenizer, texts []string, pad int) batchInput {
	encs := make([]encoding, len(texts))
	seq := 0
	for i, t := range texts {
		encs[i] = encode(tk, t)
		seq = max(seq, len(encs[i].ids))
	}
	seq = (seq + pad - 1) / pad * pad
	n := len(texts)
	b := batchInput{n: n, seq: seq, ids: make([]int64, n*seq), mask: make([]int64, n*seq), types: make([]int64, n*seq), masks: make([][]int64, n)}
	for i, e := range encs {
		copy(b.ids[i*seq:], e.ids)
		copy(b.mask[i*seq:], e.mask)
		copy(b.types[i*seq:], e.typeIDs)
		b.masks[i] = e.mask
	}
	return b
}

// pool mean-pools the model's hidden states ([n][seq][dim] flattened) over
// each text's mask.
func (b batchInput) pool(hidden []float32, dim int) [][]float32 {
	vecs := make([][]float32, b.n)
	for i, m := range b.masks {
		vecs[i] = meanPool(hidden[i*b.seq*dim:(i+1)*b.seq*dim], m, dim)
	}
	return vecs
}
