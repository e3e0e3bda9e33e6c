package recall

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
)

// SchemaVersion changes whenever what the index stores changes; an index
// written under another version is rebuilt.
const SchemaVersion = 2

// manifest records what a scope's index holds: the settings it was built
// with and, per file, the stat data and content hash the chunks came from.
type manifest struct {
	Schema  int
	Chunker string
	// Embedder is the identity of the embedder the stored vectors came
	// from, "" when there are none.
	Embedder string
	Files    map[string]*fileState
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
}

var (
	manifestMagic = []byte("TMEMMAN1")
	crcTable      = crc32.MakeTable(crc32.Castagnoli)
	// errCorrupt marks index files that cannot be trusted.
	errCorrupt = errors.New("index is corrupt")
)

func newManifest(chunker, embedder string) *manifest {
	return &manifest{Schema: SchemaVersion, Chunker: chunker, Embedder: embedder, Files: map[string]*fileState{}}
}

// encode frames the manifest as magic, length, CRC and gob payload, so a
// torn or edited file is detected on reading.
func (m *manifest) encode() ([]byte, error) {
	var payload bytes.Buffer
	if err := gob.NewEncoder(&payload).Encode(m); err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	out := make([]byte, 0, len(manifestMagic)+12+payload.Len())
	out = append(out, manifestMagic...)
	out = binary.LittleEndian.AppendUint64(out, uint64(payload.Len()))
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(payload.Bytes(), crcTable))
	return append(out, payload.Bytes()...), nil
}

func readManifest(path string) (*manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeManifest(b)
}

func decodeManifest(b []byte) (*manifest, error) {
	h := len(manifestMagic) + 12
	if len(b) < h || !bytes.Equal(b[:len(manifestMagic)], manifestMagic) {
		return nil, fmt.Errorf("manifest header: %w", errCorrupt)
	}
	n := binary.LittleEndian.Uint64(b[len(manifestMagic):])
	sum := binary.LittleEndian.Uint32(b[len(manifestMagic)+8:])
	payload := b[h:]
	if uint64(len(payload)) != n || crc32.Checksum(payload, crcTable) != sum {
		return nil, fmt.Errorf("manifest checksum: %w", errCorrupt)
	}
	m := &manifest{}
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(m); err != nil {
		return nil, fmt.Errorf("manifest: %v: %w", err, errCorrupt)
	}
	if m.Files == nil {
		m.Files = map[string]*fileState{}
	}
	return m, nil
}
