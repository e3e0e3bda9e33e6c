package recall

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"slices"
)

// SchemaVersion changes whenever what the index stores changes; an index
// written under another version is rebuilt.
const SchemaVersion = 11

// manifest records what a scope's index holds: the settings it was built
// with and, per file, the stat data and content hash the chunks came from.
type manifest struct {
	Schema  int
	Chunker string
	// Embedder is the identity of the embedder the stored vectors came
	// from, "" when there are none.
	Embedder string
	// Unembedded is how many indexed chunks have no vector from Embedder
	// yet: the backlog a sync left for EmbedBacklog (see Options.SyncEmbed).
	Unembedded int
	// Store records the bleve files as the last sync left them.
	Store []storeFile
	Files map[string]*fileState
	// Stats is what BM25 needs of the whole index: a header-only read
	// fills it in from the header; encode sums it up from Files.
	Stats fieldStats
	// NotIndexed is why each file listed but not indexed was left out,
	// by path, as the manifest was last read or encoded (see
	// notIndexed): a search reports it without going through Files.
	NotIndexed []string
}

// notIndexed lists why each file listed but not indexed was left out, by
// path.
func (m *manifest) notIndexed() []string {
	var paths []string
	for p, f := range m.Files {
		if f.Err != "" {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = m.Files[p].Err
	}
	return out
}

type fileState struct {
	Size  int64
	MTime int64 // ns
	CTime int64 // ns, 0 where the platform has none
	Ino   uint64
	Hash  string // content hash, hex
	// Chunks is how many chunks (IDs path#0 … path#Chunks-1) the file has
	// in the index.
	Chunks int
	Kind   string
	Date   string
	Err    string // why the file is listed but not indexed
	// Lens is, per lenFields, the total length of the file's chunks in
	// terms; Has how many of its chunks have that field at all.
	Lens, Has fieldLens
}

// fieldLens holds one number per lenFields.
type fieldLens []int64

func (l fieldLens) add(o fieldLens) fieldLens {
	if l == nil {
		l = make(fieldLens, len(lenFields))
	}
	for i := range l {
		if i < len(o) {
			l[i] += o[i]
		}
	}
	return l
}

// fieldStats is, per lenFields, the total length of the field over all
// chunks and how many chunks have it: their ratio is the average length
// BM25 normalises by.
type fieldStats struct{ Lens, Has fieldLens }

// stats sums the file table's field lengths.
func (m *manifest) stats() fieldStats {
	var st fieldStats
	for _, f := range m.Files {
		st.Lens = st.Lens.add(f.Lens)
		st.Has = st.Has.add(f.Has)
	}
	return st
}

var (
	// manifestMagic names the framing; it changes whenever encode does, so an
	// index from another tmem version is told apart from a damaged one.
	manifestMagic = []byte("TMEMMAN2")
	// manifestFamily is the part of the magic every version shares.
	manifestFamily = []byte("TMEMMAN")
	crcTable       = crc32.MakeTable(crc32.Castagnoli)
	// errCorrupt marks index files that cannot be trusted.
	errCorrupt = errors.New("index is corrupt")
)

func newManifest(chunker, embedder string) *manifest {
	return &manifest{Schema: SchemaVersion, Chunker: chunker, Embedder: embedder, Files: map[string]*fileState{}}
}

// manifestHeader is the part of the manifest a search reads: the
// settings, the record of the bleve files, and the weekly summaries for
// the recency pass. The per-file table follows it and is decoded only by
// a sync.
type manifestHeader struct {
	Schema     int
	Chunker    string
	Embedder   string
	Unembedded int
	Store      []storeFile
	Weeklies   []weeklyRef
	Stats      fieldStats
	NotIndexed []string
}

type weeklyRef struct{ Path, Date string }

// weeklies lists the indexed weekly summaries.
func (m *manifest) weeklies() []weeklyRef {
	var out []weeklyRef
	for p, f := range m.Files {
		if f.Kind == "weekly" && f.Chunks > 0 {
			out = append(out, weeklyRef{p, f.Date})
		}
	}
	return out
}

// encode frames the manifest as magic, the lengths of its two gob parts
// (header, files), a CRC of both, and the parts, so a torn or edited file
// is detected on reading.
func (m *manifest) encode() ([]byte, error) {
	var head, files bytes.Buffer
	m.Stats, m.NotIndexed = m.stats(), m.notIndexed()
	h := manifestHeader{Schema: m.Schema, Chunker: m.Chunker, Embedder: m.Embedder, Unembedded: m.Unembedded, Store: m.Store, Weeklies: m.weeklies(), Stats: m.Stats, NotIndexed: m.NotIndexed}
	if err := gob.NewEncoder(&head).Encode(h); err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	if err := gob.NewEncoder(&files).Encode(m.Files); err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	crc := crc32.Update(crc32.Checksum(head.Bytes(), crcTable), crcTable, files.Bytes())
	out := make([]byte, 0, len(manifestMagic)+20+head.Len()+files.Len())
	out = append(out, manifestMagic...)
	out = binary.LittleEndian.AppendUint64(out, uint64(head.Len()))
	out = binary.LittleEndian.AppendUint64(out, uint64(files.Len()))
	out = binary.LittleEndian.AppendUint32(out, crc)
	out = append(out, head.Bytes()...)
	return append(out, files.Bytes()...), nil
}

func readManifest(path string) (*manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, _, err := decodeManifest(b, false)
	return m, err
}

// decodeManifest checks and decodes a manifest; with headerOnly the file
// table is left out (m.Files is nil) and only the header's weekly list is
// filled in.
func decodeManifest(b []byte, headerOnly bool) (*manifest, []weeklyRef, error) {
	h := len(manifestMagic) + 20
	if len(b) >= len(manifestMagic) && bytes.HasPrefix(b, manifestFamily) &&
		!bytes.Equal(b[:len(manifestMagic)], manifestMagic) {
		return nil, nil, fmt.Errorf("manifest framing %q, want %q: written by another tmem version", b[:len(manifestMagic)], manifestMagic)
	}
	if len(b) < h || !bytes.Equal(b[:len(manifestMagic)], manifestMagic) {
		return nil, nil, fmt.Errorf("manifest header: %w", errCorrupt)
	}
	hl := binary.LittleEndian.Uint64(b[len(manifestMagic):])
	fl := binary.LittleEndian.Uint64(b[len(manifestMagic)+8:])
	sum := binary.LittleEndian.Uint32(b[len(manifestMagic)+16:])
	payload := b[h:]
	if uint64(len(payload)) != hl+fl || crc32.Checksum(payload, crcTable) != sum {
		return nil, nil, fmt.Errorf("manifest checksum: %w", errCorrupt)
	}
	var head manifestHeader
	if err := gob.NewDecoder(bytes.NewReader(payload[:hl])).Decode(&head); err != nil {
		return nil, nil, fmt.Errorf("manifest: %v: %w", err, errCorrupt)
	}
	m := &manifest{Schema: head.Schema, Chunker: head.Chunker, Embedder: head.Embedder, Unembedded: head.Unembedded, Store: head.Store, Stats: head.Stats, NotIndexed: head.NotIndexed}
	if headerOnly {
		return m, head.Weeklies, nil
	}
	if err := gob.NewDecoder(bytes.NewReader(payload[hl:])).Decode(&m.Files); err != nil {
		return nil, nil, fmt.Errorf("manifest: %v: %w", err, errCorrupt)
	}
	if m.Files == nil {
		m.Files = map[string]*fileState{}
	}
	return m, head.Weeklies, nil
}

// nonZero is 1 where l is not 0.
func (l fieldLens) nonZero() fieldLens {
	out := make(fieldLens, len(l))
	for i, n := range l {
		if n > 0 {
			out[i] = 1
		}
	}
	return out
}
