package minilm

import (
	"sync"

	"github.com/sugarme/tokenizer"
)

// batchInput is one batch of texts as model input: token ids, attention mask
// and token type ids, each [n][seq] flattened, padded to seq.
type batchInput struct {
	n, seq           int
	ids, mask, types []int64
	masks            [][]int64 // each text's own mask, unpadded
}

// encodeBatch tokenizes texts (mu guards tk) and pads them to the longest,
// rounded up to a multiple of pad.
func encodeBatch(mu *sync.Mutex, tk *tokenizer.Tokenizer, texts []string, pad int) (batchInput, error) {
	encs := make([]encoding, len(texts))
	seq := 0
	mu.Lock()
	for i, t := range texts {
		e, err := encode(tk, t)
		if err != nil {
			mu.Unlock()
			return batchInput{}, err
		}
		encs[i] = e
		seq = max(seq, len(e.ids))
	}
	mu.Unlock()
	seq = (seq + pad - 1) / pad * pad
	n := len(texts)
	b := batchInput{n: n, seq: seq, ids: make([]int64, n*seq), mask: make([]int64, n*seq), types: make([]int64, n*seq), masks: make([][]int64, n)}
	for i, e := range encs {
		copy(b.ids[i*seq:], e.ids)
		copy(b.mask[i*seq:], e.mask)
		copy(b.types[i*seq:], e.typeIDs)
		b.masks[i] = e.mask
	}
	return b, nil
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
