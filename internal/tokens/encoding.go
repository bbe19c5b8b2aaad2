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
	ascii, other := e.countByScript(b)
	return ascii + other
}

// countByScript is count split in two: the tokens of the pieces that are
// all ASCII, and of the others (other scripts, emoji, symbols), which the
// bound counters scale by a wider margin.
func (e *encoding) countByScript(b []byte) (ascii, other int) {
	v := e.load()
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	sc := scratchPool.Get().(*mergeScratch)
	if sc.owner != v {
		sc.owner = v
		clear(sc.cache[:])
		clear(sc.merged[:])
	}
	for i := 0; i < len(b); {
		j := e.split(b, i)
		n := v.pieceTokens(b[i:j], sc)
		if isASCII(b[i:j]) {
			ascii += n
		} else {
			other += n
		}
		i = j
	}
	scratchPool.Put(sc)
	return ascii, other
}

// isASCII reports whether every byte of b is below 0x80.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// vocab is a BPE vocabulary: token bytes to rank. Tokens of up to 8 bytes
// (most of them, and every pair a merge looks up first) are keys of one
// open-addressing table of 64-bit words; longer ones are in a second table
// over a byte arena. About 6 MB for o200k_base (4.2 MB of short slots),
// against the tens of MB of a Go map of strings.
type vocab struct {
	short []shortSlot // a power of two long
	shift int         // 64 - log2(len(short))
	arena []byte      // the long tokens' bytes
	off   []uint32    // long token i is arena[off[i]:off[i+1]]
	ranks []uint32    // and has rank ranks[i]
	slots []uint32    // long-token index+1, 0 when empty; a power of two long
	seed  maphash.Seed
}

// shortSlot is a token of at most 8 bytes: its bytes as a little-endian
// word, its length (0: an empty slot) and its rank.
type shortSlot struct {
	key  uint64
	n    uint32
	rank uint32
}

// shortKey packs up to 8 bytes into a word.
func shortKey(b []byte) uint64 {
	var k uint64
	for i, c := range b {
		k |= uint64(c) << (8 * i)
	}
	return k
}

// shortHash spreads a short key and its length over the table.
func shortHash(k uint64, n int) uint64 { return (k ^ uint64(n)<<61) * 0x9E3779B97F4A7C15 }

func newVocab(tokens []string) *vocab {
	v := &vocab{seed: maphash.MakeSeed()}
	nShort := 0
	for _, t := range tokens {
		if t != "" && len(t) <= 8 {
			nShort++
		}
	}
	v.short = make([]shortSlot, tableSize(nShort))
	v.shift = 64 - bitsOf(len(v.short))
	v.off = []uint32{0}
	for r, t := range tokens {
		switch {
		case t == "":
		case len(t) <= 8:
			k := shortKey([]byte(t))
			i := shortHash(k, len(t)) >> v.shift
			for v.short[i].n != 0 {
				i = (i + 1) & uint64(len(v.short)-1)
			}
			v.short[i] = shortSlot{key: k, n: uint32(len(t)), rank: uint32(r)}
		default:
			v.arena = append(v.arena, t...)
			v.off = append(v.off, uint32(len(v.arena)))
			v.ranks = append(v.ranks, uint32(r))
		}
	}
	v.slots = make([]uint32, tableSize(len(v.ranks)))
	mask := uint64(len(v.slots) - 1)
	for i := range v.ranks {
		j := maphash.Bytes(v.seed, v.arena[v.off[i]:v.off[i+1]]) & mask
		for v.slots[j] != 0 {
			j = (j + 1) & mask
		}
		v.slots[j] = uint32(i + 1)
	}
	return v
}

// tableSize is the power of two at least 1.5 times n: a table at most two
// thirds full, so that a probe stays short.
func tableSize(n int) int {
	size := 1
	for size < n+n/2 {
		size <<= 1
	}
	return size
}

// bitsOf is log2 of a power of two.
func bitsOf(size int) int {
	b := 0
	for 1<<b < size {
		b++
	}
	return b
}

// noRank is the rank of bytes that are no token.
const noRank = ^uint32(0)

// rank returns the rank of b, or noRank.
func (v *vocab) rank(b []byte) uint32 {
	if len(b) <= 8 {
		k := shortKey(b)
		mask := uint64(len(v.short) - 1)
		for i := shortHash(k, len(b)) >> v.shift; ; i = (i + 1) & mask {
			s := &v.short[i]
			if s.n == 0 {
				return noRank
			}
			if s.key == k && s.n == uint32(len(b)) {
				return s.rank
			}
		}
	}
	mask := uint64(len(v.slots) - 1)
	for j := maphash.Bytes(v.seed, b) & mask; ; j = (j + 1) & mask {
		s := v.slots[j]
		if s == 0 {
			return noRank
		}
		if i := s - 1; bytes.Equal(v.arena[v.off[i]:v.off[i+1]], b) {
			return v.ranks[i]
		}
	}
}

// mergeScratch is the working memory of a count's merges, reused from
// piece to piece and, through scratchPool, from count to count: the parts
// of the piece being merged, and a direct-mapped cache of the ranks of
// short byte strings (pieces and pairs) looked up lately. Token use is
// skewed, so most look-ups hit the cache's 128 KB instead of the
// vocabulary's megabytes.
type mergeScratch struct {
	parts  []part
	owner  *vocab
	cache  [1 << cacheBits]shortSlot // n == 0: empty
	merged [1 << mergedBits]mergedPiece
}

// mergedPiece is a piece of at most 30 bytes that is no token, and the
// tokens its merge gave (n == 0: empty): words recur, so most merges are
// done once per count.
type mergedPiece struct {
	n, tokens uint8
	b         [30]byte
}

const mergedBits = 10

const cacheBits = 13

// encodings share the pool: a cache holds ranks of one vocabulary, so it
// records which (owner).
var scratchPool = sync.Pool{New: func() any { return new(mergeScratch) }}

// cachedRank is rank through sc's cache (sc.owner is v).
func (v *vocab) cachedRank(b []byte, sc *mergeScratch) uint32 {
	if len(b) > 8 {
		return v.rank(b)
	}
	k := shortKey(b)
	e := &sc.cache[shortHash(k, len(b))>>(64-cacheBits)]
	if e.n == uint32(len(b)) && e.key == k {
		return e.rank
	}
	r := v.rank(b)
	*e = shortSlot{key: k, n: uint32(len(b)), rank: r}
	return r
}

type part struct {
	start int
	rank  uint32 // rank of the pair starting here, noRank when none
}

// pieceTokens returns the tokens of one piece: 1 when the piece is a token,
// else the parts tiktoken's byte-pair merge leaves: adjacent parts are
// merged lowest rank first (leftmost on ties) while the pair is a token.
func (v *vocab) pieceTokens(piece []byte, sc *mergeScratch) int {
	if len(piece) <= 1 || v.cachedRank(piece, sc) != noRank {
		return min(len(piece), 1)
	}
	if len(piece) > longPiece {
		return v.longPieceTokens(piece)
	}
	var slot *mergedPiece
	if len(piece) <= len(slot.b) {
		h := uint64(len(piece))
		for _, c := range piece {
			h = (h ^ uint64(c)) * 0x100000001b3
		}
		slot = &sc.merged[h>>(64-mergedBits)]
		if int(slot.n) == len(piece) && string(slot.b[:slot.n]) == string(piece) {
			return int(slot.tokens)
		}
	}
	n := v.merge(piece, sc)
	if slot != nil {
		slot.n, slot.tokens = uint8(len(piece)), uint8(n)
		copy(slot.b[:], piece)
	}
	return n
}

// merge is pieceTokens' byte-pair merge of a piece that is no token.
func (v *vocab) merge(piece []byte, sc *mergeScratch) int {
	parts := sc.parts[:0]
	for i := range len(piece) + 1 {
		parts = append(parts, part{start: i, rank: noRank})
	}
	pairRank := func(i int) uint32 {
		if i+2 >= len(parts) {
			return noRank
		}
		return v.cachedRank(piece[parts[i].start:parts[i+2].start], sc)
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
