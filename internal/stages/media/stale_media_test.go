package media

import (
	"bytes"
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

const (
	imgBlock   = `{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`
	staleImage = `{"type":"text","text":"[image data removed - already processed by model]"}`
	asst       = `{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop"}`
)

func user(content string) string { return `{"role":"user","content":` + content + `}` }

func msgs(m ...string) string { return "[" + strings.Join(m, ",") + "]" }

func TestStaleMedia(t *testing.T) {
	mediaText := `[{"type":"text","text":"[media attached: /x.png]"}]`
	mediaGone := `[{"type":"text","text":"[media reference removed - already processed by model]"}]`
	tests := []struct {
		name   string
		in     string
		want   string // "" means unchanged
		images int
		refs   int
	}{
		{
			name:   "V50 four completed turns",
			in:     msgs(user(`[`+imgBlock+`]`), asst, user(mediaText), asst, user(`"u3"`), asst, user(`[`+imgBlock+`]`), asst),
			want:   msgs(user(`[`+staleImage+`]`), asst, user(mediaText), asst, user(`"u3"`), asst, user(`[`+imgBlock+`]`), asst),
			images: 1,
		},
		{
			name:   "V50 five completed turns",
			in:     msgs(user(`[`+imgBlock+`]`), asst, user(mediaText), asst, user(`"u3"`), asst, user(`[`+imgBlock+`]`), asst, user(`"u5"`), asst),
			want:   msgs(user(`[`+staleImage+`]`), asst, user(mediaGone), asst, user(`"u3"`), asst, user(`[`+imgBlock+`]`), asst, user(`"u5"`), asst),
			images: 1, refs: 1,
		},
		{
			name: "V51 tool loop counts once",
			in: msgs(user(`[`+imgBlock+`]`),
				`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}`,
				`{"role":"toolResult","toolCallId":"c1","content":[`+imgBlock+`]}`,
				asst, user(`"u2"`), asst, user(`"u3"`), asst),
		},
		{
			name: "in-progress turn and the last three stay",
			in:   msgs(user(`"[media attached: a]"`), asst, user(`"[media attached: b]"`), asst, user(`"[media attached: c]"`), asst, user(`"[media attached: d]"`), asst, user(`[`+imgBlock+`]`)),
			want: msgs(user(`"[media reference removed - already processed by model]"`), asst, user(`"[media attached: b]"`), asst, user(`"[media attached: c]"`), asst, user(`"[media attached: d]"`), asst, user(`[`+imgBlock+`]`)),
			refs: 1,
		},
		{
			name: "tool results and string content before the boundary; assistant images kept",
			in: msgs(user(`"see media://inbound/abc.png and [Image: source: /tmp/a.jpg]"`),
				`{"role":"assistant","content":[`+imgBlock+`,{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"stopReason":"error"}`,
				`{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"[MEDIA ATTACHED 2/3: a.png] x"},`+imgBlock+`],"isError":false}`,
				asst, user(`"2"`), asst, user(`"3"`), asst, user(`"4"`), asst),
			want: msgs(user(`"see [media reference removed - already processed by model] and [media reference removed - already processed by model]"`),
				`{"role":"assistant","content":[`+imgBlock+`,{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"stopReason":"error"}`,
				`{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"[media reference removed - already processed by model] x"},`+staleImage+`],"isError":false}`,
				asst, user(`"2"`), asst, user(`"3"`), asst, user(`"4"`), asst),
			images: 1, refs: 3,
		},
		{
			name:   "a leading tool result starts the first turn",
			in:     msgs(`{"role":"toolResult","toolCallId":"c0","content":[`+imgBlock+`]}`, asst, user(`"2"`), asst, user(`"3"`), asst, user(`"4"`), asst),
			want:   msgs(`{"role":"toolResult","toolCallId":"c0","content":[`+staleImage+`]}`, asst, user(`"2"`), asst, user(`"3"`), asst, user(`"4"`), asst),
			images: 1,
		},
		{
			name: "three completed turns: unchanged",
			in:   msgs(user(`[`+imgBlock+`]`), asst, user(`"2"`), asst, user(`"3"`), asst),
		},
		{
			name: "old messages without media keep their bytes",
			in:   msgs(user(`[ {"type":"text", "text":"[not media] media://outbound/x"} ]`), asst, user(`"2"`), asst, user(`"3"`), asst, user(`"4"`), asst),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := stagetest.Case{Target: stagetest.Anthropic}
			res := c.Apply(t, tc.in, StaleMedia())
			want := tc.want
			if want == "" {
				want = tc.in
				if string(res.JSON) != tc.in {
					t.Errorf("output %s, want the input bytes", res.JSON)
				}
			}
			stagetest.Equal(t, res.JSON, want)
			if got := res.Report.Stages.Of("stale_media"); got["images"] != tc.images || got["media_refs"] != tc.refs {
				t.Errorf("report %v, want images %d, media_refs %d", got, tc.images, tc.refs)
			}
			if res.Report.Images.Stale != tc.images {
				t.Errorf("Images.Stale %d, want %d", res.Report.Images.Stale, tc.images)
			}
			again := c.Apply(t, string(res.JSON), StaleMedia())
			if string(again.JSON) != string(res.JSON) || again.Report.Stages.Len() != 0 {
				t.Errorf("second run changed something: %s %v", again.JSON, again.Report.Stages)
			}
		})
	}
}

// TestScrubMediaRefs pins the three patterns down, JavaScript semantics
// included.
func TestScrubMediaRefs(t *testing.T) {
	const gone = StaleMediaRefMarker
	tests := []struct {
		in, want string
		n        int
	}{
		{"[media attached: /a.png]", gone, 1},
		{"[Media Attached 1/2: a.png] and [media attached 2/2:b.png]", gone + " and " + gone, 2},
		{"[media attached 1/2 : a]", "[media attached 1/2 : a]", 0}, // no space allowed before ':'
		{"[media attached:]", "[media attached:]", 0},               // needs a non-empty body
		{"[media attached: a\nb]", gone, 1},                         // the body may span lines
		{"[media attached:\u00a0a]", gone, 1},                       // JavaScript \s includes NBSP
		{"[media attached\u3000\u30001/2: a]", gone, 1},
		{"[image: SOURCE: x.jpg]", gone, 1},
		{"[Image:source:x]", gone, 1},
		{"[Image: ſource: x]", "[Image: ſource: x]", 0}, // no Unicode case folding
		{"[Image: source: ]", gone, 1},                  // \s* gives the space back to the body
		{"media://inbound/ab_c.png rest", gone + " rest", 1},
		{"(media://inbound/x/y)", "(" + gone + "/y)", 1},
		{`media://inbound/a\b`, gone + `\b`, 1},
		{"[media://inbound/q]", "[" + gone + "]", 1},
		{"xmedia://inbound/q", "xmedia://inbound/q", 0}, // \b needs a non-word before
		{"MEDIA://inbound/q", "MEDIA://inbound/q", 0},   // case-sensitive
		{"media://inbound/", "media://inbound/", 0},
		{"[media attached: media://inbound/x]", gone, 1}, // patterns in order
		{"plain text", "plain text", 0},
	}
	for _, tc := range tests {
		got, n := scrubMediaRefs(tc.in)
		if got != tc.want || n != tc.n {
			t.Errorf("scrubMediaRefs(%q) = %q, %d; want %q, %d", tc.in, got, n, tc.want, tc.n)
		}
	}
}

// scrubUnguarded is scrubMediaRefs without the guards: every pattern's
// regexp over the whole text, in order, as spec §3.19 states them.
func scrubUnguarded(s string) (string, int) {
	n := 0
	for _, p := range mediaRefPatterns {
		locs := p.re.FindAllStringIndex(s, -1)
		n += len(locs)
		for k := len(locs) - 1; k >= 0; k-- {
			s = s[:locs[k][0]] + StaleMediaRefMarker + s[locs[k][1]:]
		}
	}
	return s, n
}

// mediaRefFragments are the pieces TestScrubMediaRefsGuards builds texts
// of: the patterns' starts in every case, cut short, next to brackets of
// real tool output and the letters Unicode folds onto ASCII ones.
var mediaRefFragments = []string{
	"[", "]", "[[", "[media attached", "[MEDIA ATTACHED", "[Media attached 1/2", "[media attache", "[media  attached",
	": ", ":", "a.png", " 1/2", "[image:", "[IMAGE:", "[Image :", " source:", " SOURCE:", "ſource:", "[imaKe:",
	"media://inbound/", "media://inbound", "xmedia://inbound/", "media:/", "/", `\`, "\n", "\t", " ", "\u00a0",
	"items[0]", `["a", "b"]`, "ok  \tpkg\t0.2s", "K", "ſ", "日本",
}

// TestScrubMediaRefsGuards holds scrubMediaRefs, whose patterns run only
// on a text their guards find, to the patterns run on every text: the
// table of TestScrubMediaRefs' texts, then texts of up to eight random
// fragments.
func TestScrubMediaRefsGuards(t *testing.T) {
	texts := []string{"[media attached: /a.png]", "[Image:source:x]", "(media://inbound/x/y)", "[media attached: media://inbound/x]"}
	rng := rand.New(rand.NewPCG(31, 9))
	for range 20000 {
		var sb strings.Builder
		for range 1 + rng.IntN(8) {
			sb.WriteString(mediaRefFragments[rng.IntN(len(mediaRefFragments))])
		}
		texts = append(texts, sb.String())
	}
	matched := 0
	for _, s := range texts {
		got, n := scrubMediaRefs(s)
		want, wantN := scrubUnguarded(s)
		if got != want || n != wantN {
			t.Fatalf("scrubMediaRefs(%q) = %q, %d; the unguarded patterns give %q, %d", s, got, n, want, wantN)
		}
		if wantN > 0 {
			matched++
		}
	}
	if matched < len(texts)/20 {
		t.Fatalf("only %d of %d texts hold a reference: the fragments no longer test the guards", matched, len(texts))
	}
}

// TestHasBracketedWord pins the guard of the two bracketed patterns.
func TestHasBracketedWord(t *testing.T) {
	for _, tc := range []struct {
		s, word string
		want    bool
	}{
		{"[image:", "image:", true},
		{"x [IMAGE: y", "image:", true},
		{"[ image:", "image:", false},
		{"[imag", "image:", false},
		{"[[image:", "image:", true},
		{"[a] [b] [Media Attached", "media attached", true},
		{"image:", "image:", false},
		{"", "image:", false},
		{"[media attachez", "media attached", false},
	} {
		if got := hasBracketedWord(tc.s, tc.word); got != tc.want {
			t.Errorf("hasBracketedWord(%q, %q) = %v, want %v", tc.s, tc.word, got, tc.want)
		}
	}
}

// FuzzScrubMediaRefs holds the guarded patterns to the unguarded ones.
func FuzzScrubMediaRefs(f *testing.F) {
	for _, s := range []string{"[media attached: /a.png]", "[Image: source: x]", "media://inbound/a", `["x"] items[0]`, "[imagE:SOURCE:ſ]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, n := scrubMediaRefs(s)
		if want, wantN := scrubUnguarded(s); got != want || n != wantN {
			t.Fatalf("scrubMediaRefs(%q) = %q, %d; the unguarded patterns give %q, %d", s, got, n, want, wantN)
		}
	})
}

func FuzzStaleMedia(f *testing.F) {
	for _, s := range staleMediaSeeds {
		f.Add([]byte(s))
	}
	c := stagetest.Case{Target: stagetest.Anthropic}
	f.Fuzz(func(t *testing.T, in []byte) {
		c.CheckProperties(t, in, StaleMedia())
	})
}

// TestMayHoldMediaRef checks the raw prefilter never hides a reference
// that JSON escapes spell differently.
func TestMayHoldMediaRef(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want bool
	}{
		{`"plain text\nwith escapes \"quoted\" \/ path"`, false},
		{`"[media attached: a]"`, true},
		{`"\u005bmedia attached: a]"`, true},
		{`"media:\/\/inbound\/x"`, true},
		{`"\u006dedia://inbound/x"`, true},
		{`"[IMAGE: source: a]"`, true},
		{`"items[0] = [\"a\", \"b\"] [media] [image] [imag:"`, false}, // tool output: brackets, no reference
		{`"[ image: a]"`, false},
	} {
		if got := mayHoldMediaRef([]byte(tc.raw)); got != tc.want {
			t.Errorf("mayHoldMediaRef(%s) = %v, want %v", tc.raw, got, tc.want)
		}
	}
	in := msgs(user(`"\u005bmedia attached: a] media:\/\/inbound\/x"`), asst, user(`"2"`), asst, user(`"3"`), asst, user(`"4"`), asst)
	res := stagetest.Case{Target: stagetest.Anthropic}.Apply(t, in, StaleMedia())
	if got := res.Report.Stages.Get("stale_media", "media_refs"); got != 2 {
		t.Errorf("escaped references: %d replaced, want 2", got)
	}
}

// referenceMayHold is mayHoldMediaRef's definition, searched for one
// marker at a time in raw with its ASCII letters lowered.
func referenceMayHold(raw []byte) bool {
	lower := make([]byte, len(raw))
	for i, c := range raw {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return bytes.Contains(lower, []byte("[media attached")) || bytes.Contains(lower, []byte("[image:")) ||
		bytes.Contains(raw, []byte("media:")) || bytes.Contains(raw, []byte(`\u`))
}

// mayHoldSearches are mayHoldMediaRef and the search it makes without
// vectors (the same function in a build without GOEXPERIMENT=simd).
var mayHoldSearches = []struct {
	name string
	f    func([]byte) bool
}{{"mayHoldMediaRef", mayHoldMediaRef}, {"mayHoldMediaRefEach", mayHoldMediaRefEach}}

// TestMayHoldMediaRefPlaces puts each marker at every offset of texts of
// every length up to three blocks of each search (16 bytes for `\u`
// without vectors, 32 with them), across the block boundaries and the
// vector search's tail, beside bytes one below and above the marker's
// (which the block test may flag).
func TestMayHoldMediaRefPlaces(t *testing.T) {
	markers := []string{"[", "[image:", "[IMAGE:", "[Media Attached", "[media attache", "[imag", "media:", `\u`, "\\", ":", "media", "edia:", "Z", "\x5a", ";", "9", "]"}
	for n := 0; n <= 100; n++ {
		for at := 0; at <= n; at++ {
			for _, mk := range markers {
				for _, fill := range []byte{'a', 'i', 'M', 0, 1, '[' - 1, ':' + 1, '\\' + 1} {
					raw := append(bytes.Repeat([]byte{fill}, at), mk...)
					raw = append(raw, bytes.Repeat([]byte{fill}, n-at)...)
					for _, s := range mayHoldSearches {
						if got, want := s.f(raw), referenceMayHold(raw); got != want {
							t.Fatalf("%s(%q) = %v, want %v", s.name, raw, got, want)
						}
					}
				}
			}
		}
	}
}

// FuzzMayHoldMediaRef holds the searches to their definition.
func FuzzMayHoldMediaRef(f *testing.F) {
	for _, s := range []string{`"plain text\nwith \"escapes\""`, `"x media:\/\/inbound"`, `"\u005b"`, `"a\\u"`, "[", "0123456media:"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, s := range mayHoldSearches {
			if got, want := s.f(raw), referenceMayHold(raw); got != want {
				t.Fatalf("%s(%q) = %v, want %v", s.name, raw, got, want)
			}
		}
	})
}

// BenchmarkMayHoldMediaRef runs the prefilter over the text of a 2,500
// character text without a marker (what it reads of almost every stale
// message), prose with escapes, shell output with a colon a line and
// source with brackets (no reference after them),
// beside its search without vectors and its definition (referenceMayHold).
func BenchmarkMayHoldMediaRef(b *testing.B) {
	for _, text := range []struct{ name, line string }{
		{"prose", `the build failed because the linker could not find symbol main 日本語 \"and\" back\\slashes `},
		{"shell", `ok  	github.com/hygiene-dev/hygiene/internal/stages	0.245s\n--- PASS: TestX (0.17s)\n`},
		{"code", `\tfor i, item := range items[1:] {\n\t\tout[i] = [2]string{item.Name, \"x\"}\n`},
	} {
		raw := []byte(`"` + strings.Repeat(text.line, 2500/len(text.line)) + `"`)
		for _, c := range []struct {
			name string
			f    func([]byte) bool
		}{{"prefilter", mayHoldMediaRef}, {"each", mayHoldMediaRefEach}, {"definition", referenceMayHold}} {
			b.Run(text.name+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					if c.f(raw) {
						b.Fatal("a marker in plain text")
					}
				}
			})
		}
	}
}

// staleMediaSeeds are histories with stale images and media references
// in every shape the rule scrubs.
var staleMediaSeeds = []string{
	msgs(user(`[`+imgBlock+`]`), asst, user(`[{"type":"text","text":"[media attached: /x.png]"}]`), asst, user(`"u3"`), asst, user(`[`+imgBlock+`]`), asst, user(`"u5"`), asst),
	msgs(user(`[`+imgBlock+`]`), `{"role":"assistant","content":[]}`, `{"role":"toolResult","content":[`+imgBlock+`]}`, asst, user(`"u2"`), asst, user(`"u3"`), asst),
	msgs(`{"role":"toolResult","content":"media://inbound/a"}`, asst, asst, user(`"[Image: source: a]"`), asst, user(`1`), asst, user(`null`), asst, `null`),
}

// TestStaleMediaChunksMatchSequential runs the rule over long histories
// (the seeds repeated) sequentially and in 2 to 8 chunks: the same output
// and report.
func TestStaleMediaChunksMatchSequential(t *testing.T) {
	for _, s := range staleMediaSeeds {
		in := "[" + strings.Repeat(strings.Trim(s, "[]")+",", 40) + strings.Trim(s, "[]") + "]"
		for helpers := 1; helpers < 8; helpers++ {
			checkStaleChunks(t, []byte(in), fanout.New(helpers, 1))
		}
	}
}

// FuzzStaleMediaChunks holds the chunked rule to the sequential one.
func FuzzStaleMediaChunks(f *testing.F) {
	for _, s := range staleMediaSeeds {
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, in []byte, helpers uint8) {
		if transcript.Valid(in, 64) != nil || !bytes.HasPrefix(bytes.TrimSpace(in), []byte("[")) {
			return
		}
		checkStaleChunks(t, in, fanout.New(1+int(helpers)%8, 1))
	})
}

// checkStaleChunks compares the sequential and the chunked run over in.
func checkStaleChunks(t *testing.T, in []byte, fan stage.Fanout) {
	t.Helper()
	if _, err := transcript.FromMessages(in, stagetest.Anthropic); err != nil {
		return // not a message array: nothing to compare
	}
	run := func(fan stage.Fanout) ([]byte, *stage.Report) {
		tr, _ := transcript.FromMessages(in, stagetest.Anthropic)
		env := &stage.Env{Report: stage.NewReport(), Fanout: fan}
		if err := StaleMedia().Apply(context.Background(), tr, env); err != nil {
			t.Fatal(err)
		}
		return tr.MessagesJSON(), env.Report
	}
	seqOut, seqRep := run(nil)
	chkOut, chkRep := run(fan)
	if !bytes.Equal(seqOut, chkOut) || !reflect.DeepEqual(seqRep, chkRep) {
		t.Fatalf("chunked %s %+v, sequential %s %+v", chkOut, chkRep, seqOut, seqRep)
	}
}
