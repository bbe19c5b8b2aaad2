package jsontape

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// appendStringByRune is AppendString's definition, a rune at a time: the
// quote, the backslash and control bytes escaped (\n, \r, \t by name, the
// rest as \u00XX), invalid UTF-8 as \ufffd, everything else as it is.
func appendStringByRune(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r < 0x20:
			dst = fmt.Appendf(dst, `\u%04x`, r)
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// TestAppendStringByRune checks AppendString against its definition with
// each byte it must escape or check, and multi-byte text valid and not, at
// every position of a plain string (the plain prefix is stepped over by a
// table look-up a byte).
func TestAppendStringByRune(t *testing.T) {
	specials := []string{`"`, `\`, "\n", "\r", "\t", "\x00", "\x1f", "\x7f", " ", "é", "中", "😀", "\xff", "\xc3", "\xed\xa0\x80"}
	for n := range 20 {
		for at := 0; at <= n; at++ {
			for _, sp := range specials {
				s := strings.Repeat("a", at) + sp + strings.Repeat("b", n-at)
				if got, want := string(AppendString([]byte("x"), s)), string(appendStringByRune([]byte("x"), s)); got != want {
					t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
				}
			}
		}
	}
}
