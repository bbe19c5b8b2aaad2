package tokens

import (
	"bytes"
	"hash/maphash"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// encoding is one of OpenAI's published BPE encodings: its vocabulary (the
// token bytes of each rank) and its pre-tokenizer. The vocabulary is the one
// github.com/tiktoken-go/tokenizer embeds (generated from OpenAI's
// o200k_base.tiktoken and cl100k_base.tiktoken); it is read out of that
// package into a compact table the first time the encoding is used, and
// nothing is read from disk or network.
type encoding struct {
	name  string
	id    tokenizer.Encoding
	split func(s []byte, i int) int
	once  sync.Once
	vocab *vocab
}

var (
	o200k  = &encoding{name: "o200k_base", id: tokenizer.O200kBase, split: splitO200k}
	cl100k = &encoding{name: "cl100k_base", id: tokenizer.Cl100kBase, split: splitCl100k}
)

// maxRank bounds the ranks read from the embedded vocabulary (o200k_base
// has 199,998 tokens, cl100k_base 100,256); reading stops after 1,024
// ranks in a row with no token.
const maxRank = 1 << 18

// load reads the vocabulary: every rank's token bytes, as the embedded
// codec decodes it.
func (e *encoding) load() *vocab {
	e.once.Do(func() {
		c, err := tokenizer.Get(e.id)
		if err != nil {
			panic("tokens: embedded encoding " + e.name + " missing: " + err.Error())
		}
		tokens := make([]string, 0, maxRank)
		for r, missing := 0, 0; r < maxRank && missing < 1024; r++ {
			s, err := c.Decode([]uint{uint(r)})
			if missing++; err == nil {
				missing = 0
			} else {
				s = "" // no token of this rank
			}
			tokens = append(tokens, s)
		}
		for len(tokens) > 0 && tokens[len(tokens)-1] == "" {
			tokens = tokens[:len(tokens)-1]
		}
		e.vocab = newVocab(tokens)
	})
	return e.vocab
}

// count returns the tokens of b under the encoding. Invalid UTF-8 is first
// replaced by U+FFFD, as tiktoken reads a Python str decoded with
// errors="replace".
func (e *encoding) count(b []byte) int {
	v := e.load()
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	n := 0
	var scratch mergeScratch
	for i := 0; i < len(b); {
		j := e.split(b, i)
		n += v.pieceTokens(b[i:j], &scratch)
		i = j
	}
	return n
}

// vocab is a BPE vocabulary: token bytes to rank, in one open-addressing
// table over one byte arena (about 4 MB for o200k_base, against the tens
// of MB of a Go map of strings).
type vocab struct {
	arena []byte   // every token's bytes, by rank
	off   []uint32 // rank r is arena[off[r]:off[r+1]]
	slots []uint32 // rank+1, 0 when empty; a power of two long
	seed  maphash.Seed
}

func newVocab(tokens []string) *vocab {
	v := &vocab{off: make([]uint32, len(tokens)+1), seed: maphash.MakeSeed()}
	size := 0
	for _, t := range tokens {
		size += len(t)
	}
	v.arena = make([]byte, 0, size)
	for r, t := range tokens {
		v.arena = append(v.arena, t...)
		v.off[r+1] = uint32(len(v.arena))
	}
	n := 1
	for n < 2*len(tokens) {
		n <<= 1
	}
	v.slots = make([]uint32, n)
	for r, t := range tokens {
		if t == "" {
			continue
		}
		i := maphash.String(v.seed, t) & uint64(n-1)
		for v.slots[i] != 0 {
			i = (i + 1) & uint64(n-1)
		}
		v.slots[i] = uint32(r + 1)
	}
	return v
}

// noRank is the rank of bytes that are no token.
const noRank = ^uint32(0)

// rank returns the rank of b, or noRank.
func (v *vocab) rank(b []byte) uint32 {
	mask := uint64(len(v.slots) - 1)
	for i := maphash.Bytes(v.seed, b) & mask; ; i = (i + 1) & mask {
		s := v.slots[i]
		if s == 0 {
			return noRank
		}
		r := s - 1
		if bytes.Equal(v.arena[v.off[r]:v.off[r+1]], b) {
			return r
		}
	}
}

// mergeScratch is the working memory of one count's merges, reused from
// piece to piece.
type mergeScratch struct {
	parts []part
}

type part struct {
	start int
	rank  uint32 // rank of the pair starting here, noRank when none
}

// pieceTokens returns the tokens of one piece: 1 when the piece is a token,
// else the parts tiktoken's byte-pair merge leaves: adjacent parts are
// merged lowest rank first (leftmost on ties) while the pair is a token.
func (v *vocab) pieceTokens(piece []byte, sc *mergeScratch) int {
	if len(piece) <= 1 || v.rank(piece) != noRank {
		return min(len(piece), 1)
	}
	if len(piece) > longPiece {
		return v.longPieceTokens(piece)
	}
	parts := sc.parts[:0]
	for i := range len(piece) + 1 {
		parts = append(parts, part{start: i, rank: noRank})
	}
	pairRank := func(i int) uint32 {
		if i+2 >= len(parts) {
			return noRank
		}
		return v.rank(piece[parts[i].start:parts[i+2].start])
	}
	for i := range len(parts) - 2 {
		parts[i].rank = pairRank(i)
	}
	for len(parts) > 2 {
		best, at := noRank, -1
		for i, p := range parts[:len(parts)-1] {
			if p.rank < best {
				best, at = p.rank, i
			}
		}
		if at < 0 {
			break
		}
		parts = append(parts[:at+1], parts[at+2:]...)
		parts[at].rank = pairRank(at)
		if at > 0 {
			parts[at-1].rank = pairRank(at - 1)
		}
	}
	sc.parts = parts
	return len(parts) - 1
}
