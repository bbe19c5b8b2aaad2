package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers split a text into the pieces BPE merges within, as
// tiktoken's split patterns do, written out by hand so that no regular
// expression engine runs per byte. Each returns the end of the piece that
// starts at i (i < len(s)); s is valid UTF-8.
//
// o200k_base's pattern, alternatives tried in this order:
//
//	A1 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	A2 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	A3 \p{N}{1,3}
//	A4  ?[^\s\p{L}\p{N}]+[\r\n/]*
//	A5 \s*[\r\n]+
//	A6 \s+(?!\S)
//	A7 \s+
//
// cl100k_base's: (?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\r\n\p{L}\p{N}]?\p{L}+ |
// \p{N}{1,3} |  ?[^\s\p{L}\p{N}]+[\r\n]* | then A5, A6, A7.
//
// Each alternative is matched with the backtracking a regular expression
// engine would do (an optional prefix given back, a greedy run given back
// one character at a time), in closed form.

// runeAt decodes the rune at i; past the end it is -1.
func runeAt(s []byte, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRune(s[i:])
}

// Character classes. ASCII takes the table; the rest unicode's.
const (
	clsUpper  = 1 << iota // \p{Lu} \p{Lt}
	clsLower              // \p{Ll}
	clsOtherL             // \p{Lm} \p{Lo}
	clsMark               // \p{M}
	clsNumber             // \p{N}
	clsSpace              // \s
	clsCRLF               // \r \n
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		t[c] = unicodeClass(rune(c))
	}
	return t
}()

func unicodeClass(r rune) uint8 {
	var k uint8
	switch {
	case unicode.IsUpper(r), unicode.IsTitle(r):
		k = clsUpper
	case unicode.IsLower(r):
		k = clsLower
	case unicode.IsLetter(r):
		k = clsOtherL
	case unicode.IsMark(r):
		k = clsMark
	case unicode.IsNumber(r):
		k = clsNumber
	case unicode.IsSpace(r):
		k = clsSpace
	}
	if r == '\r' || r == '\n' {
		k |= clsCRLF
	}
	return k
}

func class(r rune) uint8 {
	if r < 0 {
		return 0
	}
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	return unicodeClass(r)
}

const (
	clsLetter = clsUpper | clsLower | clsOtherL
	clsU      = clsUpper | clsOtherL | clsMark // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clsLw     = clsLower | clsOtherL | clsMark // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
)

// isPrefix is [^\r\n\p{L}\p{N}]; isPunct is [^\s\p{L}\p{N}].
func isPrefix(k uint8) bool { return k&(clsLetter|clsNumber|clsCRLF) == 0 }
func isPunct(k uint8) bool  { return k&(clsLetter|clsNumber|clsSpace) == 0 }

// run returns the end of the longest run from i of runes whose class has a
// bit of want.
func run(s []byte, i int, want uint8) int {
	for i < len(s) {
		r, n := runeAt(s, i)
		if class(r)&want == 0 {
			break
		}
		i += n
	}
	return i
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or i.
// Case folding makes 'ſ' (U+017F) an s as well.
func contraction(s []byte, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	lower := func(c byte) byte { return c | 0x20 }
	switch c := lower(s[i+1]); c {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && lower(s[i+2]) == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && lower(s[i+2]) == 'l' {
			return i + 3
		}
	}
	if s[i+1] == 0xC5 && i+2 < len(s) && s[i+2] == 0xBF { // ſ
		return i + 3
	}
	return i
}

// prefixStarts lists where the letter part of A1, A2 and B2 may start: after
// an optional prefix rune (tried first), then at i.
func prefixStarts(s []byte, i int) (withPrefix, without int) {
	r, n := runeAt(s, i)
	if isPrefix(class(r)) {
		return i + n, i
	}
	return -1, i
}

// o200kA1 matches A1 at i: end, or -1.
func o200kA1(s []byte, i int) int {
	with, without := prefixStarts(s, i)
	for _, p := range [2]int{with, without} {
		if p < 0 {
			continue
		}
		// [U]* greedy to j, then given back rune by rune until [Lw]+ can
		// start at k.
		j := run(s, p, clsU)
		for k := j; ; {
			r, _ := runeAt(s, k)
			if class(r)&clsLw != 0 {
				return contraction(s, run(s, k, clsLw))
			}
			if k == p {
				break
			}
			_, n := utf8.DecodeLastRune(s[p:k])
			k -= n
		}
	}
	return -1
}

// o200kA2 matches A2 at i: end, or -1.
func o200kA2(s []byte, i int) int {
	with, without := prefixStarts(s, i)
	for _, p := range [2]int{with, without} {
		if p < 0 {
			continue
		}
		if j := run(s, p, clsU); j > p {
			return contraction(s, run(s, j, clsLw))
		}
	}
	return -1
}

// digits matches \p{N}{1,3} at i: end, or -1.
func digits(s []byte, i int) int {
	j := i
	for range 3 {
		r, n := runeAt(s, j)
		if class(r)&clsNumber == 0 {
			break
		}
		j += n
	}
	if j == i {
		return -1
	}
	return j
}

// punct matches " ?[^\s\p{L}\p{N}]+" then the greedy tail of tailClass at
// i: end, or -1. slash adds '/' to the tail (o200k's [\r\n/]*).
func punct(s []byte, i int, slash bool) int {
	p := i
	if s[i] == ' ' {
		if r, _ := runeAt(s, i+1); isPunct(class(r)) {
			p = i + 1
		}
	}
	j := p
	for j < len(s) {
		r, n := runeAt(s, j)
		if !isPunct(class(r)) {
			break
		}
		j += n
	}
	if j == p {
		return -1
	}
	for j < len(s) && (s[j] == '\r' || s[j] == '\n' || slash && s[j] == '/') {
		j++
	}
	return j
}

// spaces matches A5, A6 and A7 at i: end, or -1 when s[i] is no space.
func spaces(s []byte, i int) int {
	j := run(s, i, clsSpace)
	if j == i {
		return -1
	}
	// A5: \s*[\r\n]+ ends right after the run's last \r or \n.
	for k := j - 1; k >= i; k-- {
		if s[k] == '\r' || s[k] == '\n' {
			return k + 1
		}
	}
	// A6: \s+(?!\S): the whole run at the end of the text, else the run
	// less its last rune when that leaves one.
	if j == len(s) {
		return j
	}
	_, n := utf8.DecodeLastRune(s[i:j])
	if j-n > i {
		return j - n
	}
	return j // A7
}

// splitO200k returns the end of the o200k_base piece at i.
func splitO200k(s []byte, i int) int {
	if e := asciiO200k(s, i); e > 0 {
		return e
	}
	if e := o200kA1(s, i); e > 0 {
		return e
	}
	if e := o200kA2(s, i); e > 0 {
		return e
	}
	return splitRest(s, i, true)
}

// splitCl100k returns the end of the cl100k_base piece at i.
func splitCl100k(s []byte, i int) int {
	if e := contraction(s, i); e > i {
		return e
	}
	with, without := prefixStarts(s, i)
	for _, p := range [2]int{with, without} {
		if p < 0 {
			continue
		}
		if j := run(s, p, clsLetter); j > p {
			return j
		}
	}
	return splitRest(s, i, false)
}

// splitRest is the alternatives both patterns share: numbers, punctuation,
// spaces. Every rune matches one of them, so it always advances.
func splitRest(s []byte, i int, slash bool) int {
	if e := digits(s, i); e > 0 {
		return e
	}
	if e := punct(s, i, slash); e > 0 {
		return e
	}
	if e := spaces(s, i); e > 0 {
		return e
	}
	// Unreachable for valid UTF-8 (every rune is a letter, mark, number,
	// space or other); one rune keeps the loop going on anything else.
	_, n := runeAt(s, i)
	return i + max(n, 1)
}

// asciiO200k is splitO200k for the common pieces that ASCII alone decides:
// a word with an optional prefix, digits, a run of punctuation. It returns
// 0 when a byte it would have to classify is not ASCII (or the piece is
// white space), and the general alternatives then decide.
func asciiO200k(s []byte, i int) int {
	k := asciiClass[s[i]&0x7f]
	if s[i] >= utf8.RuneSelf || k&clsSpace != 0 && s[i] != ' ' {
		return 0
	}
	next := byte(0)
	if i+1 < len(s) {
		if next = s[i+1]; next >= utf8.RuneSelf {
			return 0
		}
	}
	p := i
	switch {
	case k&clsLetter != 0:
	case isPrefix(k) && asciiClass[next]&clsLetter != 0:
		p = i + 1
	case k&clsNumber != 0:
		j := i + 1
		for ; j < len(s) && j < i+3; j++ {
			if s[j] >= utf8.RuneSelf {
				return 0
			}
			if asciiClass[s[j]]&clsNumber == 0 {
				break
			}
		}
		return j
	case s[i] == ' ':
		return 0 // white space, or " " before punctuation: the general path
	default: // punctuation (A4), not before a letter
		j := i + 1
		for ; j < len(s) && isPunct(asciiClass[s[j]&0x7f]); j++ {
			if s[j] >= utf8.RuneSelf {
				return 0
			}
		}
		if j < len(s) && s[j] >= utf8.RuneSelf {
			return 0
		}
		for j < len(s) && (s[j] == '\r' || s[j] == '\n' || s[j] == '/') {
			j++
		}
		return j
	}
	// A word: [A-Z]* then [a-z]+ (A1), else [A-Z]+[a-z]* (A2), then a
	// contraction; a non-ASCII byte anywhere in the runs defers.
	j := p
	for j < len(s) && s[j]-'A' < 26 {
		j++
	}
	e := j
	for e < len(s) && s[e]-'a' < 26 {
		e++
	}
	if e < len(s) && s[e] >= utf8.RuneSelf {
		return 0
	}
	return contraction(s, e)
}
