package contract

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// pngB64 is a w x h PNG in base64.
func pngB64(tb testing.TB, w, h int) string {
	tb.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		tb.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func imageBlock(data string) string {
	return `{"type":"image","data":"` + data + `","mimeType":"image/png"}`
}

// userWith is a user message whose content is the given blocks.
func userWith(blocks ...string) string {
	return `{"role":"user","content":[` + strings.Join(blocks, ",") + `]}`
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func call(id, name string) string {
	return `{"role":"assistant","content":[{"type":"toolCall","id":"` + id + `","name":"` + name + `","arguments":{}}]},` +
		`{"role":"toolResult","toolCallId":"` + id + `","toolName":"` + name + `","content":[{"type":"text","text":"ok"}]}`
}

const hi = `{"role":"user","content":"hi"}`

func check(tb testing.TB, f Family, ctx int, msgs string) Result {
	tb.Helper()
	tr, err := transcript.FromMessages([]byte(msgs), transcript.Target{Provider: "x", API: "y"})
	if err != nil {
		tb.Fatalf("fixture: %v\n%.300s", err, msgs)
	}
	return Check(tr.Messages, Of(f), ctx)
}

// factCase is one good or bad input for one fact of one family. rule is the
// rule the input must break ("" for a good input); no other rule may be
// broken but extra.
type factCase struct {
	name   string
	family Family
	ctx    int
	msgs   string
	rule   string
	extra  string
}

// TestCheckFacts has a good and a bad input for each fact of each family
// that has it, and the bad input of a fact for a family that does not
// have it, which must pass.
func TestCheckFacts(t *testing.T) {
	small := pngB64(t, 8, 8)
	wide := pngB64(t, 8400, 2)
	at8000 := pngB64(t, 8000, 2)
	mid := pngB64(t, 2400, 2)
	twoK := pngB64(t, 2000, 2)
	var cases []factCase
	add := func(fact string, families []Family, good, bad, rule string, ctx int) {
		for _, f := range families {
			cases = append(cases, factCase{fact + "/good", f, ctx, good, "", ""}, factCase{fact + "/bad", f, ctx, bad, rule, ""})
		}
	}
	lenient := func(fact string, families []Family, bad string) {
		for _, f := range families {
			cases = append(cases, factCase{fact + "/not a rule here", f, 0, bad, "", ""})
		}
	}
	turnFamilies := []Family{AnthropicMessages, AnthropicCloud, BedrockConverse, Gemini}
	freeTurns := []Family{AnthropicCompatible, OpenAIChat, OpenAIResponses, Mistral, OpenAICompatible, Passthrough}
	firstAssistant := `[{"role":"assistant","content":[{"type":"text","text":"a"}]},` + hi + `]`
	add("first turn", turnFamilies, `[`+hi+`,{"role":"assistant","content":[{"type":"text","text":"a"}]}]`, firstAssistant, RuleFirstTurn, 0)
	add("first turn: a summary is a user turn", turnFamilies, `[{"role":"compactionSummary","summary":"s"},`+hi+`]`, firstAssistant, RuleFirstTurn, 0)
	lenient("first turn", freeTurns, firstAssistant)
	add("first turn: an entry of no known role is not sent", turnFamilies, `[{"role":"\b"},{"note":"x"},`+hi+`]`,
		`[{"role":"\b"},{"role":"assistant","content":[{"type":"text","text":"a"}]},`+hi+`]`, RuleFirstTurn, 0)
	twoAssistants := `[` + hi + `,{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]}]`
	add("alternation", turnFamilies, `[`+hi+`,{"role":"assistant","content":[{"type":"text","text":"a"}]},`+hi+`]`, twoAssistants, RuleAlternation, 0)
	lenient("alternation", freeTurns, twoAssistants)
	add("alternation: an unsent entry does not separate turns", turnFamilies, `[`+hi+`,{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"custom","content":"c"},{"role":"assistant","content":[{"type":"text","text":"b"}]}]`,
		`[`+hi+`,{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"x"},{"role":"assistant","content":[{"type":"text","text":"b"}]}]`, RuleAlternation, 0)

	// Tool-call ids: each family's pattern and length.
	for _, tc := range []struct {
		f         Family
		good, bad string
	}{
		{AnthropicMessages, "toolu_01A-b", "call|fc_1"},
		{AnthropicCloud, "toolu_01A-b", "edit:22"},
		{AnthropicCompatible, "call_1", "call.1"},
		{BedrockConverse, strings.Repeat("a", 64), strings.Repeat("a", 65)},
		{OpenAIChat, strings.Repeat("x", 40), strings.Repeat("x", 41)},
		{OpenAICompatible, strings.Repeat("x", 40), strings.Repeat("x", 41)},
		{OpenAIResponses, "call_1|fc_2", strings.Repeat("c", 65)},
		{OpenAIResponses, "call_isAjIhKtJ0RlgLKOmxgJTeKd|fc_fae923d5a4fd12aabfe228f219e9cb0eb53f16947ccf25ec", strings.Repeat("c", 65) + "|fc_1"},
		{Gemini, "call1", "call_1"},
		{Mistral, "abcDEF123", "abcDEF12"},
	} {
		add("tool-call id", []Family{tc.f}, `[`+hi+`,`+call(tc.good, "read")+`]`, `[`+hi+`,`+call(tc.bad, "read")+`]`, RuleToolCallID, 0)
	}
	lenient("tool-call id", []Family{Passthrough}, `[`+hi+`,`+call("any id at all|x", "read")+`]`)

	// Tool names.
	for _, tc := range []struct {
		f         Family
		good, bad string
	}{
		{AnthropicMessages, "web_search-2", "mcp.server.tool"},
		{AnthropicCloud, strings.Repeat("n", 64), strings.Repeat("n", 65)},
		{BedrockConverse, "read", "server:read"},
		{OpenAIChat, "read", "read file"},
		{OpenAIResponses, "read", "functions.read"},
		{OpenAICompatible, "read", "a/b"},
		{Mistral, "read", "read!"},
		{Gemini, "server:read.v2", "2read"},
	} {
		id := map[Family]string{Gemini: "call1", Mistral: "abcDEF123"}[tc.f]
		if id == "" {
			id = "call_1"
		}
		add("tool name", []Family{tc.f}, `[`+hi+`,`+call(id, tc.good)+`]`, `[`+hi+`,`+call(id, tc.bad)+`]`, RuleToolName, 0)
	}

	// Images per request: Anthropic 100 (200k), 600 above.
	hundred := `[` + strings.Join(repeat(userWith(imageBlock(small)), 100), ",") + `]`
	hundredOne := `[` + strings.Join(repeat(userWith(imageBlock(small)), 101), ",") + `]`
	add("images per request, 200k", []Family{AnthropicMessages, AnthropicCloud, BedrockConverse}, hundred, hundredOne, RuleImagesPerRequest, 200_000)
	sixHundredOne := `[` + strings.Join(repeat(userWith(imageBlock(small)), 601), ",") + `]`
	add("images per request, 1M", []Family{AnthropicMessages}, hundredOne, sixHundredOne, RuleImagesPerRequest, 1_000_000)
	lenient("images per request", []Family{OpenAIChat, Gemini, Passthrough}, hundredOne)
	add("images per request, gemini", []Family{Gemini}, `[`+strings.Join(repeat(userWith(imageBlock(small)), 3600), ",")+`]`,
		`[`+strings.Join(repeat(userWith(imageBlock(small)), 3601), ",")+`]`, RuleImagesPerRequest, 0)

	// Images per message: Bedrock 20.
	twenty := `[` + userWith(repeat(imageBlock(small), 20)...) + `]`
	twentyOne := `[` + userWith(repeat(imageBlock(small), 21)...) + `]`
	add("images per message", []Family{BedrockConverse}, twenty, twentyOne, RuleImagesPerMessage, 0)
	// Pixels: 8000 a side; 2000 above 20 images in the request (and 21
	// images in one message also breaks Bedrock's per-message cap).
	add("pixels per side", []Family{AnthropicMessages, AnthropicCloud, BedrockConverse},
		`[`+userWith(imageBlock(at8000))+`]`, `[`+userWith(imageBlock(wide))+`]`, RuleImagePixels, 0)
	manyAt2000 := `[` + strings.Join(append(repeat(userWith(imageBlock(small)), 20), userWith(imageBlock(twoK))), ",") + `]`
	manyAt2400 := `[` + strings.Join(append(repeat(userWith(imageBlock(small)), 20), userWith(imageBlock(mid))), ",") + `]`
	add("pixels per side, many images", []Family{AnthropicMessages, BedrockConverse}, manyAt2000, manyAt2400, RuleImagePixels, 0)
	add("pixels per side, 20 images are not many", []Family{AnthropicMessages}, `[`+strings.Join(append(repeat(userWith(imageBlock(small)), 19), userWith(imageBlock(mid))), ",")+`]`,
		`[`+userWith(imageBlock(wide))+`]`, RuleImagePixels, 0)
	lenient("pixels per side", []Family{OpenAIChat, Gemini, Mistral}, `[`+userWith(imageBlock(wide))+`]`)

	// Bytes per image: Anthropic's 5 MB base64, Bedrock's 3.75 MB decoded.
	fiveMB := strings.Repeat("A", 5<<20)
	overFive := strings.Repeat("A", 5<<20+4)
	// (The data is no image, so its header is unreadable as well.)
	for _, f := range []Family{AnthropicMessages, BedrockConverse} {
		cases = append(cases,
			factCase{"bytes per image/good", f, 0, `[` + userWith(imageBlock(fiveMB)) + `]`, "", RuleImagePixels},
			factCase{"bytes per image/bad", f, 0, `[` + userWith(imageBlock(overFive)) + `]`, RuleImageBytes, RuleImagePixels})
	}

	// Request size: 32 MB Anthropic, 20 MB Bedrock and Vertex.
	text := func(n int) string { return `[{"role":"user","content":"` + strings.Repeat("t", n) + `"}]` }
	add("request size", []Family{AnthropicMessages}, text(32<<20-100), text(32<<20), RuleRequestSize, 0)
	add("request size", []Family{AnthropicCloud, BedrockConverse}, text(20<<20-100), text(20<<20), RuleRequestSize, 0)
	lenient("request size", []Family{OpenAIChat}, text(32<<20))

	// Text validity: a lone surrogate (a cut emoji) in any string.
	lone := `[{"role":"user","content":"cut \ud83d emoji"}]`
	pair := `[{"role":"user","content":"whole \ud83d\ude00 emoji and a \\ud83d that is text"}]`
	add("text validity", Families(), pair, lone, RuleTextValidity, 0)
	add("text validity, low half alone", []Family{OpenAIChat}, pair, `[{"role":"user","content":"x\udc00"}]`, RuleTextValidity, 0)

	// Thinking signatures, in an earlier assistant turn.
	thinking := func(sig string) string {
		return `[` + hi + `,{"role":"assistant","content":[{"type":"thinking","thinking":"t"` + sig + `},{"type":"text","text":"a"}]},` + hi +
			`,{"role":"assistant","content":[{"type":"thinking","thinking":"latest, unsigned"},{"type":"text","text":"b"}]}]`
	}
	add("thinking signature", []Family{AnthropicMessages, AnthropicCloud, BedrockConverse}, thinking(`,"thinkingSignature":"sig"`), thinking(``), RuleThinkingSignature, 0)
	lenient("thinking signature", []Family{AnthropicCompatible, OpenAIChat, Gemini}, thinking(``))

	// Required content.
	add("no message", Families(), `[`+hi+`]`, `[]`, RuleRequiredContent, 0)
	add("no user turn", []Family{OpenAIChat, Passthrough}, `[`+hi+`]`, `[{"role":"assistant","content":[{"type":"text","text":"a"}]}]`, RuleRequiredContent, 0)

	// Tool pairing: every call answered right after its turn, every result
	// answering a call of the turn before it.
	pairingFamilies := []Family{AnthropicMessages, AnthropicCloud, AnthropicCompatible, BedrockConverse, OpenAIChat, OpenAIResponses, OpenAICompatible, Gemini}
	twoCalls := `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"toolCall","id":"c2","name":"read","arguments":{}}]}`
	result := func(id string) string {
		return `{"role":"toolResult","toolCallId":"` + id + `","content":[{"type":"text","text":"r"}]}`
	}
	answered := `[` + hi + `,` + twoCalls + `,` + result("c2") + `,` + result("c1") + `,` + hi + `]`
	add("tool pairing: a call without its result", pairingFamilies, answered, `[`+hi+`,`+twoCalls+`,`+result("c1")+`,`+hi+`]`, RuleToolPairing, 0)
	add("tool pairing: a result after the next turn", pairingFamilies, answered, `[`+hi+`,`+twoCalls+`,`+result("c1")+`,`+hi+`,`+result("c2")+`]`, RuleToolPairing, 0)
	add("tool pairing: an orphan result", pairingFamilies, answered, `[`+hi+`,`+result("ghost")+`]`, RuleToolPairing, 0)
	lenient("tool pairing", []Family{Passthrough}, `[`+hi+`,`+twoCalls+`,`+hi+`,`+result("ghost")+`]`)
	emptyAssistant := `[` + hi + `,{"role":"assistant","content":[]}]`
	add("empty assistant", []Family{AnthropicMessages, BedrockConverse}, `[`+hi+`,{"role":"assistant","content":[{"type":"text","text":"a"}]}]`, emptyAssistant, RuleRequiredContent, 0)
	add("blank text", []Family{AnthropicMessages, BedrockConverse}, `[`+hi+`]`, `[{"role":"user","content":[{"type":"text","text":"  "}]}]`, RuleRequiredContent, 0)
	lenient("empty assistant", []Family{OpenAIChat, Gemini}, emptyAssistant)
	add("empty user turn", []Family{AnthropicMessages, AnthropicCloud, BedrockConverse}, `[`+hi+`]`, `[{"role":"user","content":""},`+hi+`]`, RuleRequiredContent, 0)

	// Bedrock: images only in user turns (and tool results).
	assistantImage := `[` + hi + `,{"role":"assistant","content":[{"type":"text","text":"see"},` + imageBlock(small) + `]}]`
	add("image role", []Family{BedrockConverse}, `[`+userWith(imageBlock(small))+`,{"role":"assistant","content":[{"type":"toolCall","id":"x","name":"shot","arguments":{}}]},`+
		`{"role":"toolResult","toolCallId":"x","content":[`+imageBlock(small)+`]}]`,
		assistantImage, RuleImageRole, 0)
	lenient("image role", []Family{AnthropicMessages, OpenAIChat}, assistantImage)

	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s", tc.family, tc.name), func(t *testing.T) {
			res := check(t, tc.family, tc.ctx, tc.msgs)
			for rule := range res.Counts {
				if rule != tc.rule && rule != tc.extra {
					t.Fatalf("unexpected violation of %s: %v", rule, res.Violations)
				}
			}
			if tc.rule != "" && res.Counts[tc.rule] == 0 {
				t.Fatalf("no %s violation", tc.rule)
			}
		})
	}
}

// TestViolationPaths checks the path and wording of violations and the
// dead letter's summary.
func TestViolationPaths(t *testing.T) {
	wide := pngB64(t, 8400, 2)
	msgs := `[` + hi + `,` + userWith(`{"type":"text","text":"look"}`, `{"type":"text","text":"x"}`, `{"type":"text","text":"y"}`, imageBlock(wide)) + `,` + call("call|1", "read") + `]`
	res := check(t, AnthropicMessages, 0, msgs)
	want := []string{
		`messages[1].content[3]: image 8400 px > 8000`,
		`messages[2].content[0]: tool-call id "call|1" does not match ^[a-zA-Z0-9_-]+$`,
		`messages[3]: tool-result id "call|1" does not match ^[a-zA-Z0-9_-]+$`,
	}
	var got []string
	for _, v := range res.Violations {
		got = append(got, v.String())
	}
	// The walk lists block violations in message order, image facts after it.
	if len(got) != 3 || got[0] != want[1] || got[1] != want[2] || got[2] != want[0] {
		t.Fatalf("violations\n%s\nwant (in walk order)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s := res.Summary(); s != want[1]+" (3 violations: image_pixels 1, tool_call_id 2)" {
		t.Fatalf("summary %q", s)
	}
}

// TestResultBounded: a transcript with many violations lists MaxListed and
// counts them all.
func TestResultBounded(t *testing.T) {
	msgs := `[` + hi + strings.Repeat(`,`+call("bad|id", "read"), 80) + `]`
	res := check(t, AnthropicMessages, 0, msgs)
	if len(res.Violations) != MaxListed || res.Total != 160 || res.Counts[RuleToolCallID] != 160 {
		t.Fatalf("listed %d, total %d, counts %v", len(res.Violations), res.Total, res.Counts)
	}
}

// TestCheckTextRaw: invalid UTF-8 is found in message bytes (a codec that
// lets it through must not produce a payload the provider refuses).
func TestCheckTextRaw(t *testing.T) {
	var r Result
	checkText(&r, 4, []byte("{\"content\":\"\xff\xfe\"}"))
	if r.Counts[RuleTextValidity] != 1 || r.Violations[0].String() != "messages[4]: invalid UTF-8" {
		t.Fatalf("%+v", r)
	}
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`"\ud83d"`, 1},
		{`"\ud83d\ude00"`, -1},
		{`"\\ud83d"`, -1},
		{`"\\\ud83d"`, 3},
		{`"\ude00"`, 1},
		{`"\ud83d\u0041"`, 1},
		{`"\ud83d`, 1},
		{`"\u00e9\n\t\""`, -1},
	} {
		if got := loneSurrogate([]byte(tc.in)); got != tc.want {
			t.Errorf("loneSurrogate(%s) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestTableHasEveryFamily: every family has its row, and an unknown one
// gets the passthrough's.
func TestTableHasEveryFamily(t *testing.T) {
	for _, f := range Families() {
		if c := Of(f); c.Family != f || !c.ValidText {
			t.Errorf("family %s: row %+v", f, c)
		}
	}
	if Of("nope").Family != Passthrough {
		t.Error("an unknown family does not get the passthrough row")
	}
}

func BenchmarkCheck(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`[`)
	for i := range 3000 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"role":"user","content":"%s\n"},%s`, strings.Repeat("word ", 80), call(fmt.Sprintf("toolu_%d", i), "read"))
	}
	sb.WriteString(`]`)
	tr, err := transcript.FromMessages([]byte(sb.String()), transcript.Target{Provider: "anthropic"})
	if err != nil {
		b.Fatal(err)
	}
	c := Of(AnthropicMessages)
	b.SetBytes(int64(sb.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if res := Check(tr.Messages, c, 0); !res.OK() {
			b.Fatal(res.Violations)
		}
	}
}

func TestBlankText(t *testing.T) {
	for _, tc := range []struct {
		block string
		blank bool
	}{
		{`{"type":"text","text":"x"}`, false},
		{`{"type":"text","text":"  x"}`, false},
		{`{"type":"text","text":"é"}`, false},
		{`{"type":"text","text":"\n\t x"}`, false},
		{`{"type":"text","text":""}`, true},
		{`{"type":"text","text":"  \r"}`, true},
		{`{"type":"text","text":"\n\t"}`, true},
		{`{"type":"text","text":"\u00a0 "}`, true},
		{`{"type":"text","text":"\u2003\u3000 \f"}`, true},
		{`{"type":"text","text":"\u0041"}`, false},
		{`{"type":"text","text":" \"x"}`, false},
		{`{"type":"text","text":"\u00a0x"}`, false},
		{`{"type":"text","text":"　한"}`, false},
		{`{"type":"text","text":"　"}`, true},
		{`{"type":"text","text":3}`, true},
		{`{"type":"text"}`, true},
	} {
		tr, err := transcript.FromMessages([]byte(`[{"role":"user","content":[`+tc.block+`]}]`), transcript.Target{API: "x"})
		if err != nil {
			t.Fatal(err)
		}
		bs, _ := tr.Messages[0].Blocks()
		if got := bs[0].BlankText(); got != tc.blank {
			t.Errorf("%s: blank %v, want %v", tc.block, got, tc.blank)
		}
	}
}

// FuzzLoneSurrogate: the fast scan agrees with decoding the JSON string
// escape by escape.
func FuzzLoneSurrogate(f *testing.F) {
	f.Add(`"\ud83d\ude00 \\ud83d \\\ud83d"`)
	f.Add(`"\n\t\"\\"`)
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		if transcript.Valid(b, 4) != nil || len(b) == 0 || b[0] != '"' {
			return
		}
		if got, want := loneSurrogate(b) >= 0, slowLone(b); got != want {
			t.Fatalf("loneSurrogate(%s) found %v, escape-by-escape %v", s, got, want)
		}
	})
}

// FuzzCodecMarksInvalidText: a message the codec does not mark as holding
// invalid text has valid UTF-8 and no lone surrogate by the check's own
// definition, which is what lets Check skip unchanged, unmarked messages;
// and a marked message is one the check reports.
func FuzzCodecMarksInvalidText(f *testing.F) {
	f.Add([]byte(`plain`))
	f.Add([]byte(`\ud83d\ude00 \\ud83d`))
	f.Add([]byte(`cut \ud83d here`))
	f.Add([]byte(`low \ude00 alone`))
	f.Add([]byte("bad \xff byte"))
	f.Fuzz(func(t *testing.T, text []byte) {
		msgs := append(append([]byte(`[{"role":"user","content":"`), text...), `"}]`...)
		tr, err := transcript.FromMessages(msgs, transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "m"})
		if err != nil || len(tr.Messages) != 1 {
			return // not one message (the text closed the string, or is not JSON)
		}
		m := tr.Messages[0]
		var r Result
		checkText(&r, 0, m.Raw())
		if found := !r.OK(); found != m.HasInvalidText() {
			t.Fatalf("%q: the codec marks invalid text %v, the check finds it %v (%v)", text, m.HasInvalidText(), found, r.Violations)
		}
	})
}

// slowLone walks a valid JSON string escape by escape.
func slowLone(b []byte) bool {
	var prevHigh bool
	for i := 1; i < len(b)-1; i++ {
		if b[i] != '\\' {
			if prevHigh {
				return true
			}
			continue
		}
		if b[i+1] != 'u' {
			if prevHigh {
				return true
			}
			i++
			continue
		}
		v, _ := transcript.Hex4(b, i+2)
		i += 5
		switch {
		case v >= 0xD800 && v < 0xDC00:
			if prevHigh {
				return true
			}
			prevHigh = true
		case v >= 0xDC00 && v <= 0xDFFF:
			if !prevHigh {
				return true
			}
			prevHigh = false
		default:
			if prevHigh {
				return true
			}
		}
	}
	return prevHigh
}

// FuzzBlankText: the raw scan agrees with decoding and transcript.IsBlank.
func FuzzBlankText(f *testing.F) {
	f.Add(`" \n\u00a0x"`)
	f.Add(`"\u3000"`)
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := transcript.FromMessages([]byte(`[{"role":"user","content":[{"type":"text","text":`+s+`}]}]`), transcript.Target{API: "x"})
		if err != nil {
			return
		}
		bs, ok := tr.Messages[0].Blocks()
		if !ok || len(bs) != 1 {
			return
		}
		text, isString := bs[0].Text()
		if want := !isString || transcript.IsBlank(text); bs[0].BlankText() != want {
			t.Fatalf("blankText(%s) = %v, decoding says %v", s, !want, want)
		}
	})
}

// TestCheckSized: CheckSized judges the request size by the size it is
// given, measuring none, and with an unknown size (-1) is Check, which
// measures the messages as Transcript.MessagesSize does.
func TestCheckSized(t *testing.T) {
	tr, err := transcript.FromMessages([]byte(`[{"role":"user","content":"hello"},{"role":"assistant","content":"hi"}]`), transcript.Target{Provider: "x", API: "y"})
	if err != nil {
		t.Fatal(err)
	}
	tr.Messages[1].Set("content", transcript.JSONString("a longer answer"))
	c := Of(AnthropicMessages)
	size := tr.MessagesSize()
	c.MaxRequestBytes = size
	for _, tc := range []struct {
		size int
		over bool
	}{{-1, false}, {size, false}, {size + 1, true}, {1, false}} {
		res := CheckSized(tr.Messages, c, 0, tc.size)
		if got := res.Counts[RuleRequestSize] == 1; got != tc.over {
			t.Errorf("size %d: over %v (%v), want %v", tc.size, got, res.Violations, tc.over)
		}
	}
	c.MaxRequestBytes = size - 1
	if res := Check(tr.Messages, c, 0); res.Counts[RuleRequestSize] != 1 || res.Violations[0].Msg != fmt.Sprintf("%d bytes > %d per request", size, size-1) {
		t.Errorf("Check one byte over: %v", res.Violations)
	}
}
