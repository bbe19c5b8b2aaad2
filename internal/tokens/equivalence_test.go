package tokens

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// oracle is tiktoken-go's own tokenizer (its regexp2 pre-tokenizer and its
// merge), which this package's faster one must count exactly as.
func oracle(t testing.TB, e *encoding) tokenizer.Codec {
	t.Helper()
	c, err := tokenizer.Get(e.id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// interesting are runes of every class the split patterns tell apart:
// ASCII, Latin with case, CJK, Cyrillic, Devanagari letters and marks, a
// combining accent, other scripts' digits, Unicode spaces, line and
// paragraph separators, emoji, the apostrophe forms and ſ.
var interesting = []rune("aZ09 _-'\"/\\\r\n\t.,;:!?()[]{}<>=+*&^%$#@~`|" +
	"éÉßǅﬁſ日本語の中文한국어Привет мир" + "हिन्दी" + "\u0301\u0308" + "٣٤٥१२३Ⅻ½" +
	"\u00a0\u2003\u2028\u2029\u3000\u0085" + "🦊👍🏽🇫🇷" + "’ʼ" + "\x00\x1f\x7f")

// randomText builds a text of n runes: runs of interesting runes and of
// English words with contractions, so that every alternative meets its
// neighbours.
func randomText(r *rand.Rand, n int) string {
	words := []string{"the", " The", "don't", "I'LL", "we've", " it's", "you'RE", "HTTPServer", "naïve", " 123456",
		"\n\n", "  \n ", "    ", "x=1;", "//", "https://example.com/a/b", "\r\n", " ---", "ſ'ſ", "'S"}
	var b strings.Builder
	for b.Len() < n {
		if r.IntN(3) == 0 {
			b.WriteString(words[r.IntN(len(words))])
			continue
		}
		for range 1 + r.IntN(6) {
			b.WriteRune(interesting[r.IntN(len(interesting))])
		}
	}
	return b.String()
}

// TestCountMatchesTiktoken checks the merge against tiktoken-go on every
// piece the pre-tokenizer cuts from random texts of every character class
// and from this repository's own documentation and Go sources: the tokens
// of each piece, and of each whole text that holds no piece tiktoken-go
// would cut differently. tiktoken-go's regexp2 engine ends \s*[\r\n]+ at
// the first line break of a run of white space ("  \n \r\n" is "  \n" and
// " \r\n"), where tiktoken's backtracking engine, and this package, take
// the run to its last one (TestSplitMatchesPatterns); such white-space
// pieces are left to that test. tiktoken-go also drops U+007F (DEL), which
// tiktoken tokenizes as any other byte: pieces holding it are left to that
// test too.
func TestCountMatchesTiktoken(t *testing.T) {
	texts := []string{"", " ", "a", "'s", " 's", "ſ", "\n", " \n", "  x", "\t\t\n\n  y", "a  ", "x\u00a0\u00a0y",
		strings.Repeat("=", 700), strings.Repeat("ab", 400), strings.Repeat("日本", 300), "A\u0301B\u0301c",
		strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk", 20)}
	r := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		texts = append(texts, randomText(r, 1+r.IntN(300)))
	}
	for _, b := range repoTexts(t) {
		texts = append(texts, string(b))
	}
	for _, e := range []*encoding{o200k, cl100k} {
		ref := oracle(t, e)
		for _, s := range texts {
			checkAgainst(t, e, ref, s)
		}
	}
}

// repoTexts are real texts: this repository's documentation (English
// prose, tables, shell) and the contract package's Go sources.
func repoTexts(t testing.TB) [][]byte {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	more, _ := filepath.Glob("../contract/*.go")
	var texts [][]byte
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, b)
	}
	return texts
}

// checkAgainst compares e's count of s with ref's, piece by piece and,
// when no piece is white space with an inner line break, as a whole.
func checkAgainst(t *testing.T, e *encoding, ref tokenizer.Codec, s string) {
	t.Helper()
	b := []byte(s)
	whole := true
	var sc mergeScratch
	for _, p := range pieces(b, e.split) {
		if strings.TrimSpace(p) == "" && strings.ContainsAny(strings.TrimRight(p, "\r\n"), "\r\n") ||
			strings.Contains(p, "\x7f") {
			whole = false
			continue
		}
		want, _ := ref.Count(p)
		if got := e.load().pieceTokens([]byte(p), &sc); got != want {
			t.Errorf("%s: piece %q = %d tokens, tiktoken-go %d", e.name, p, got, want)
		}
	}
	if whole {
		want, _ := ref.Count(s)
		if got := e.count(b); got != want {
			t.Errorf("%s: count(%.60q…) = %d, tiktoken-go %d", e.name, s, got, want)
		}
	}
}

// FuzzCountMatchesTiktoken is the same check on any valid UTF-8.
func FuzzCountMatchesTiktoken(f *testing.F) {
	for _, s := range []string{"hello world", "don't  stop\n\n", "日本語 123456", "x\u2028y", "🦊'S"} {
		f.Add(s)
	}
	refs := map[*encoding]tokenizer.Codec{o200k: oracle(f, o200k), cl100k: oracle(f, cl100k)}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		for e, ref := range refs {
			checkAgainst(t, e, ref, s)
		}
	})
}
