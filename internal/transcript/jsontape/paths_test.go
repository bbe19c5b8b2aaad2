package jsontape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// scanPaths returns the string scans this build has: the scalar one, and
// the vector one when the build has GOEXPERIMENT=simd and the CPU AVX2.
func scanPaths() []bool {
	if vectorScan {
		return []bool{false, true}
	}
	return []bool{false}
}

// onPath runs f with the vector scan on or off, and puts it back.
func onPath(vector bool, f func()) {
	was := vectorScan
	vectorScan = vector
	defer func() { vectorScan = was }()
	f()
}

// scanResult is everything one scan of data gives: the validation error
// (or none), the index past the value, the invalid-text count, and the
// tapes of the message array when data is one.
type scanResult struct {
	Err         string
	End         int
	InvalidText int
	Escaped     bool
	Tapes       [][3]any
}

func scanOnce(data []byte) scanResult {
	var r scanResult
	if err := Valid(data, 1000); err != nil {
		r.Err = err.Error()
	}
	s := scanner{data: data, maxDepth: 1000}
	end, err := s.value(s.skipSpace(0), 0)
	r.End, r.InvalidText, r.Escaped = end, s.invalidText, s.escaped
	if err != nil {
		r.Err += " / " + err.Error()
	}
	tapes, ok, err := SplitArray(data, 1000, Parallel{})
	if ok && err == nil {
		for _, t := range tapes {
			r.Tapes = append(r.Tapes, [3]any{t.Nodes, t.Members, t.Messages})
		}
	}
	return r
}

// checkPaths scans data on every path and fails unless they agree in
// every figure, and agree with encoding/json on validity and, for a string,
// on its decoded bytes.
func checkPaths(t *testing.T, data []byte) {
	t.Helper()
	var first scanResult
	for k, vector := range scanPaths() {
		var r scanResult
		onPath(vector, func() { r = scanOnce(data) })
		if k == 0 {
			first = r
		} else if !reflect.DeepEqual(r, first) {
			t.Fatalf("%q: the vector scan gives\n%+v\nthe scalar scan\n%+v", data, r, first)
		}
		onPath(vector, func() { checkPlainEnds(t, data) })
		if nesting(data) < 1000 {
			if got, want := Valid(data, 1000) == nil, json.Valid(data); got != want {
				t.Fatalf("%q (vector %v): valid %v, encoding/json %v", data, vector, got, want)
			}
		}
		raw := bytes.TrimSpace(data)
		if r.Err != "" || len(raw) == 0 || raw[0] != '"' || !utf8.Valid(raw) {
			continue // encoding/json replaces invalid UTF-8; DecodeString keeps the bytes
		}
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%q: scanned as valid, encoding/json: %v", raw, err)
		}
		var got string
		var ok bool
		onPath(vector, func() { got, ok = DecodeString(raw) })
		if !ok || got != want {
			t.Fatalf("%q (vector %v): decoded %q, encoding/json %q", raw, vector, got, want)
		}
	}
}

// checkPlainEnds fails when a member of data's tapes (a message array's)
// is marked PlainStart but its value, decoded, is not a string whose first
// character is other than white space, or marked PlainEnds but is not
// also PlainStart, or is trimmed by strings.TrimSpace, or, holding no
// escape, changes length when decoded.
func checkPlainEnds(t *testing.T, data []byte) {
	t.Helper()
	tapes, ok, err := SplitArray(data, 1000, Parallel{})
	if !ok || err != nil {
		return
	}
	for _, tp := range tapes {
		for i := range tp.Members {
			m := &tp.Members[i]
			if m.Flags&(PlainStart|PlainEnds) == 0 {
				continue
			}
			raw := tp.Value(m)
			s, ok := DecodeString(raw)
			if !ok || s == "" || strings.TrimLeftFunc(s, unicode.IsSpace) != s || m.Flags&PlainStart == 0 {
				t.Fatalf("%q: member %s marked %08b, decodes to %q (ok %v)", data, raw, m.Flags, s, ok)
			}
			if m.Flags&PlainEnds != 0 && strings.TrimSpace(s) != s {
				t.Fatalf("%q: member %s marked PlainEnds, decodes to %q", data, raw, s)
			}
			if m.Flags&Escaped == 0 && len(s) != len(raw)-2 {
				t.Fatalf("%q: member %s has no escape but decodes to %q", data, raw, s)
			}
		}
	}
}

// TestPlainEnds marks the string values whose first byte is plain
// (PlainStart), and of those the ones whose last byte is too (PlainEnds),
// and no others: a space, a quote, a backslash, a byte of 0x80 or above,
// or the end of an escape at an end leaves that end's mark off; and only
// under the keys rules ask it of (endsAsked).
func TestPlainEnds(t *testing.T) {
	for _, c := range []struct {
		value       string
		start, ends bool
	}{
		{`"a"`, true, true}, {`"hello world."`, true, true}, {`"x\ny"`, true, true}, {`"a\u0020b"`, true, true}, {`"{}"`, true, true},
		{`"a "`, true, false}, {`"a\n"`, true, false}, {`"a\u0020"`, true, false}, {`"ab\u00e9"`, true, false}, {`"a\\"`, true, false},
		{`"a\""`, true, false}, {`"aé"`, true, false}, {"\"a\u00a0\"", true, false}, {`"a\tb\\n"`, true, false},
		{`""`, false, false}, {`" a"`, false, false}, {`"\na"`, false, false}, {`"\u0041b"`, false, false}, {`"é"`, false, false},
		{`1`, false, false}, {`["a"]`, false, false},
	} {
		for _, vector := range scanPaths() {
			onPath(vector, func() {
				data := []byte(`[{"role":"user","text":` + c.value + `,"v":` + c.value + `}]`)
				tapes, ok, err := SplitArray(data, 1000, Parallel{})
				if !ok || err != nil {
					t.Fatalf("%s: %v", data, err)
				}
				m := tapes[0].Members[1]
				if start, ends := m.Flags&PlainStart != 0, m.Flags&PlainEnds != 0; start != c.start || ends != c.ends {
					t.Errorf("%s (vector %v): PlainStart %v, PlainEnds %v; want %v, %v", c.value, vector, start, ends, c.start, c.ends)
				}
				if tapes[0].Members[2].Flags&(PlainStart|PlainEnds) != 0 { // a key no rule asks of
					t.Errorf("%s (vector %v): marked under a key not in endsAsked", c.value, vector)
				}
			})
		}
		checkPlainEnds(t, []byte(`[{"text":`+c.value+`}]`))
	}
}

// nesting is how deep data's brackets nest at most, ignoring strings (an
// upper bound, enough to keep encoding/json's own limit out of the way).
func nesting(data []byte) int {
	return bytes.Count(data, []byte("[")) + bytes.Count(data, []byte("{"))
}

// TestScanPathsAgree puts each byte the scan stops at, and multi-byte
// text valid and not, at every position around the 64-byte blocks of
// long strings, and checks both scans against each other and against
// encoding/json.
func TestScanPathsAgree(t *testing.T) {
	t.Logf("scan paths: %v (vector scan in this build: %v)", scanPaths(), vectorScan)
	specials := []string{`"`, `\`, `\"`, `\\`, `\n`, `\u00e9`, `\ud83d\ude00`, `\ud800`, "\x00", "\x1f", "\x7f",
		"é", "😀", "\xff", "\xc3", "\xed\xa0\x80", "\xef\xbf\xbd", `\x`, `\u12`}
	for _, n := range []int{0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200} {
		for at := 0; at <= n; at += max(1, n/17) {
			for _, sp := range specials {
				body := strings.Repeat("a", at) + sp + strings.Repeat("b", n-at)
				checkPaths(t, []byte(`"`+body+`"`))
				checkPaths(t, []byte(`[{"role":"user","content":[{"type":"text","text":"`+body+`"}]},{"k`+body+`":1}]`))
				checkPaths(t, []byte(`"`+body)) // unterminated
			}
		}
	}
	// Runs of backslashes of every length ending at every position around
	// a block's end: the escape carry from one block to the next.
	for run := 1; run <= 5; run++ {
		for at := 56; at <= 136; at++ {
			for _, after := range []string{`"`, `n`, `u00e9`, `ud800`, "\x01", `x`} {
				body := strings.Repeat("a", max(0, at-run)) + strings.Repeat(`\`, run) + after + "b"
				checkPaths(t, []byte(`"`+body+`"`))
				checkPaths(t, []byte(`{"k":"`+body+`","v":"x"}`))
			}
		}
	}
	// Runs of multi-byte text of every length starting around a block's
	// end, some crossing one or two blocks whole, an invalid byte at their
	// start, inside or end, and ASCII or another run after them: the vector
	// scan checks each run of bytes of 0x80 and above by itself.
	for _, run := range []int{1, 2, 3, 20, 31, 32, 33, 70} {
		for at := 50; at <= 140; at += 3 {
			for _, bad := range []string{"", "start", "end", "middle"} {
				text := strings.Repeat("é", run)
				switch bad {
				case "start":
					text = "\xff" + text
				case "end":
					text += "\xc3"
				case "middle":
					text = text[:len(text)/2&^1] + "\xed\xa0\x80" + text[len(text)/2&^1:]
				}
				for _, after := range []string{"b", "😀", " x " + strings.Repeat("日本", 30) + "\xe6"} {
					body := strings.Repeat("a", at) + text + after
					checkPaths(t, []byte(`"`+body+`"`))
				}
			}
		}
	}
	// Every kind of sequence UTF-8 bounds (overlong forms, surrogates, past
	// U+10FFFF, bytes that lead nothing, cut sequences, lone continuation
	// bytes) and the valid ones beside them, at every position around two
	// blocks' ends: the vector scan's check carries a sequence's bounds
	// from a block to the next.
	sequences := []string{"\xc2\x80", "\xdf\xbf", "\xc0\x80", "\xc1\xbf", "\xe0\xa0\x80", "\xe0\x9f\xbf", "\xe1\x80\x80",
		"\xed\x9f\xbf", "\xed\xa0\x80", "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf0\x8f\xbf\xbf",
		"\xf3\xbf\xbf\xbf", "\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\x80", "\xbf\xbf",
		"\xe6\x97", "\xf0\x9f\x98", "\xc3"}
	for _, seq := range sequences {
		for _, at := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16} {
			for _, block := range []int{48, 112} {
				for _, after := range []string{"b", "é", "\x80", `"`} {
					body := strings.Repeat("a", block+at) + seq + after + "c"
					checkPaths(t, []byte(`"`+body+`"`))
					checkPaths(t, []byte(`"`+strings.Repeat("é", (block+at)/2)+seq+after+"日本"+`"`))
				}
			}
		}
	}
	// A sequence cut at a block's end, a whole block of ASCII after it, and
	// continuation bytes at the next block's start: the check must not step
	// over the plain block.
	for seq, rest := range map[string]string{"\xe6\x97": "\xa5", "\xe6": "\x97\xa5", "\xf0\x9f\x98": "\x80", "\xc3": "\xa9"} {
		body := strings.Repeat("a", 63-len(seq)) + seq + strings.Repeat("b", 64) + rest + " c"
		checkPaths(t, []byte(`"`+body+`"`))
	}
	// Messages laid out with white space and with broken separators at
	// each place the member loop reads one (the vector scan reads a plain
	// key, its colon and its value from the block read last).
	for _, sep := range []string{"", " ", "\n  ", "\t", "x", ",", ":"} {
		for _, at := range []string{"key", "colon", "value", "comma", "close"} {
			s := func(place, dflt string) string {
				if place == at {
					return sep
				}
				return dflt
			}
			msg := `{"role"` + s("key", "") + `:` + s("colon", "") + `"user"` + s("value", "") + `,` + s("comma", "") +
				`"content":[{"type"` + s("key", "") + `:` + s("colon", "") + `"text"` + s("value", "") + `,` + s("comma", "") +
				`"text":"hi"` + s("close", "") + `}],"timestamp":1` + s("close", "") + `}`
			checkPaths(t, []byte(`[`+msg+`,`+msg+`]`))
			checkPaths(t, []byte(`[{"k`+sep+`":1},{"role":"user"`+sep+`}]`))
		}
	}
	// A key that is not a string, where the bytes after it look like the
	// end of one (a quote, then the colon).
	for _, key := range []string{`x"`, `1"`, `"`, `{"`, `""`, `"a"`} {
		checkPaths(t, []byte(`[{"role":"user",`+key+`:1},{"role":"user",`+key+`:2}]`))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "Z", " ", `"`, `\`, `\n`, `\u0041`, "é", "中", "\xff", "\x01", "{", "}", "[", "]", ":", ","}
	for range 3000 {
		var b strings.Builder
		b.WriteByte('"')
		for range rng.IntN(300) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		b.WriteByte('"')
		checkPaths(t, []byte(b.String()))
	}
}

// TestPlainRunPaths checks plainRun on both paths against its byte-at-a-time
// definition, with every special byte at every position of two blocks.
func TestPlainRunPaths(t *testing.T) {
	for _, vector := range scanPaths() {
		onPath(vector, func() {
			for _, c := range []byte{'"', '\\', 0x00, 0x1f, 0x7f, 0x80, 0xc3, 0xff, 0x20} {
				for n := 60; n < 140; n += 7 {
					for at := 0; at < n; at++ {
						data := bytes.Repeat([]byte{'a'}, n)
						data[at] = c
						for _, start := range []int{0, 1, at, n - 1} {
							if got, want := plainRun(data, start), plainRunBytewise(data, start); got != want {
								t.Fatalf("vector %v: plainRun(%q, %d) = %d, want %d", vector, data, start, got, want)
							}
						}
					}
				}
			}
		})
	}
}

// FuzzScanPaths checks the vector scan against the scalar one (every
// result of a scan, the tapes of a message array included) and both
// against encoding/json's validity and string decoding.
func FuzzScanPaths(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `"\ud83d\ude00 é"`, `"\ud800"`, "\"\xff\xfe\"", `[{"role":"user","content":"hi"}]`,
		`{"a":[1,2,{"b":"` + strings.Repeat("x", 100) + `\n"}]}`, `"` + strings.Repeat("é", 40) + `"`,
		`{"k":"` + strings.Repeat("y", 58) + `\\\\\"\\","n":"\u00e9\t"}`,
		`[{"role" : "user" , "content" : [ {"type" :"text", "text":"hi"} ] },{"role":"user","content":"a"}]`,
		`[{"role":"user","content":"a"},{"role":"user",x":1}]`} {
		f.Add([]byte(s))
	}
	for _, c := range usageCases { // a message's usage is read once for its form and validity
		f.Add([]byte(`[{"role":"assistant","usage":` + c.raw + `,"stopReason":"stop"}]`))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkPaths(t, data) })
}

// FuzzScanPathsString is FuzzScanPaths with the input as a string's body,
// so the fuzzer spends its time inside long strings.
func FuzzScanPathsString(f *testing.F) {
	f.Add([]byte(strings.Repeat("abc", 30) + `\"` + strings.Repeat("é", 30)))
	f.Add([]byte("\x00" + strings.Repeat("z", 70)))
	f.Add([]byte(strings.Repeat("q", 61) + `\\\"\\\\\u0041` + strings.Repeat("é", 30)))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkPaths(t, []byte(fmt.Sprintf(`"%s"`, body)))
	})
}
