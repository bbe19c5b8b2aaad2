package tokens

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestTextPublishedCounts checks the exact encodings against the token
// counts OpenAI publishes: tiktoken's cookbook ("How to count tokens with
// tiktoken": "tiktoken is great!" is 6 tokens in both encodings,
// "antidisestablishmentarianism" 6, "2 + 2 = 4" 7 in cl100k_base) and the
// GPT-4o tokenizer page's examples.
func TestTextPublishedCounts(t *testing.T) {
	for _, c := range []struct {
		enc  *encoding
		text string
		want int
	}{
		{o200k, "tiktoken is great!", 6},
		{cl100k, "tiktoken is great!", 6},
		{cl100k, "antidisestablishmentarianism", 6},
		{o200k, "antidisestablishmentarianism", 6},
		{cl100k, "2 + 2 = 4", 7},
		{o200k, "hello world", 2},
		{cl100k, "hello world", 2},
		{o200k, "", 0},
	} {
		if got := c.enc.count([]byte(c.text)); got != c.want {
			t.Errorf("%s(%q) = %d tokens, want %d", c.enc.name, c.text, got, c.want)
		}
	}
}

// TestForFamilies checks which tokenizer or bound each target gets.
func TestForFamilies(t *testing.T) {
	for _, c := range []struct{ provider, api, model, want string }{
		{"openai", "openai-responses", "gpt-5", "o200k_base"},
		{"openai", "openai-completions", "gpt-4o-mini", "o200k_base"},
		{"openai", "openai-completions", "gpt-4.1", "o200k_base"},
		{"openrouter", "openai-completions", "openai/o3", "o200k_base"},
		{"openai", "openai-completions", "gpt-4-0613", "cl100k_base"},
		{"openai", "openai-completions", "gpt-3.5-turbo", "cl100k_base"},
		{"anthropic", "anthropic-messages", "claude-sonnet-4-5", "o200k_base×1.35 (claude bound)"},
		{"amazon-bedrock", "bedrock-converse-stream", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "o200k_base×1.35 (claude bound)"},
		{"anthropic-vertex", "anthropic-messages", "claude-opus-4-7@20260415", "o200k_base×1.83 (claude-4-7 bound)"},
		{"google", "google-generative-ai", "gemini-2.5-pro", "o200k_base×1.25 (gemini-2 bound)"},
		{"google", "google-generative-ai", "gemini-3-pro-preview", "o200k_base×1.25 (gemini-3 bound)"},
		{"mistral", "openai-completions", "mistral-large-latest", "o200k_base×1.25 (mistral bound)"},
		{"mistral", "openai-completions", "codestral-latest", "o200k_base×1.25 (mistral bound)"},
		{"deepseek", "openai-completions", "deepseek-chat", "o200k_base×1.25 (open-weight bound)"},
		{"zai", "openai-completions", "glm-4.6", "o200k_base×1.25 (open-weight bound)"},
		{"acme", "openai-completions", "acme-llm-7", "o200k_base×1.50 (unknown bound)"},
	} {
		if got := For(c.provider, c.api, c.model).Name(); got != c.want {
			t.Errorf("For(%s, %s, %s).Name() = %q, want %q", c.provider, c.api, c.model, got, c.want)
		}
	}
}

// TestBoundIsUpperBound checks Text <= Bound(len) on texts that tokenize
// badly (one byte per token is the worst a byte-level BPE does).
func TestBoundIsUpperBound(t *testing.T) {
	texts := []string{"", "a", "\x00\x01\x02", "🦊🦊🦊 emoji", strings.Repeat("zq", 500), "日本語のテキスト",
		"func main() { fmt.Println(\"hello\") }", "\xff\xfe invalid utf-8"}
	for _, fam := range []string{famO200k, famCl100k, famClaude, famClaudeNew, famUnknown} {
		c := newCounter(fam)
		for _, s := range texts {
			if got, bound := c.Text([]byte(s)), c.Bound(len(s)); got > bound {
				t.Errorf("%s: Text(%q) = %d > Bound = %d", c.Name(), s, got, bound)
			}
		}
	}
}

// TestAnthropicCountTokensExample checks that the Claude bound does not
// undercut Anthropic's documented count_tokens example (token counting
// guide): system "You are a scientist" and the user turn "Hello, Claude"
// are 14 input tokens.
func TestAnthropicCountTokensExample(t *testing.T) {
	tr, err := transcript.FromMessages([]byte(`[{"role":"user","content":"Hello, Claude"}]`), transcript.Target{})
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"claude-sonnet-4-5", "claude-opus-4-1", "claude-opus-4-7"} {
		c := For("anthropic", "anthropic-messages", model)
		got := c.Request([]byte("You are a scientist"), nil) + c.Message(tr.Messages[0])
		if got < 14 || got > 30 {
			t.Errorf("%s: %d tokens, want the documented 14 or a little more", model, got)
		}
	}
}

// TestImageFormulas checks each provider's image formula on its own
// documented examples.
func TestImageFormulas(t *testing.T) {
	for _, c := range []struct {
		name string
		f    imageFormula
		w, h int
		want int
	}{
		// Anthropic vision guide, "Calculate image costs": 200x200 ~54,
		// 1000x1000 ~1334, 1092x1092 ~1590; larger ones are resized.
		{"anthropic 200", anthropicImage(1568, 1568*784), 200, 200, 54},
		{"anthropic 1000", anthropicImage(1568, 1568*784), 1000, 1000, 1334},
		{"anthropic 1092", anthropicImage(1568, 1568*784), 1092, 1092, 1590},
		{"anthropic 784x1568 not resized", anthropicImage(1568, 1568*784), 784, 1568, 1640},
		{"anthropic 4000x4000 resized", anthropicImage(1568, 1568*784), 4000, 4000, 1637}, // 1108x1108
		{"anthropic 4.7: 3.75 MP", anthropicImage(2576, 3_750_000), 4000, 4000, 4998},     // 1936x1936
		// OpenAI images guide: 1024x1024 high detail is 765 (4 tiles);
		// 2048x4096 is scaled to 768x1536, 6 tiles, 1105.
		{"openai 1024", openAITiles(85, 170), 1024, 1024, 765},
		{"openai 2048x4096", openAITiles(85, 170), 2048, 4096, 1105},
		{"openai 4o-mini 1024", openAITiles(2833, 5667), 1024, 1024, 2833 + 4*5667},
		// OpenAI images guide, patches: 1024x1024 is 1024 patches;
		// 1800x2400 is scaled to 1452 patches (multiplier 1.00 here).
		{"patches 1024", openAIPatches(100), 1024, 1024, 1024},
		{"patches 1800x2400", openAIPatches(100), 1800, 2400, 1452},
		{"patches gpt-5-mini 1024", openAIPatches(162), 1024, 1024, 1659},
		// Gemini token guide: <=384 px both sides is 258; larger, 768 px
		// tiles of 258; Gemini 3's default media_resolution, high: 1120.
		{"gemini 384", geminiTiles, 384, 384, 258},
		{"gemini 1024", geminiTiles, 1024, 1024, 4 * 258},
		{"gemini 3", gemini3Image, 1024, 1024, 1120},
		// mistral-common: 16 px patches and a break per row, in 1024 px.
		{"mistral 1024", mistralImage, 1024, 1024, 64 * 65},
		{"mistral 2048x1024", mistralImage, 2048, 1024, 32 * 65},
		{"mistral 100x50", mistralImage, 100, 50, 4 * 8},
		{"largest 1024", largestImage, 1024, 1024, 64 * 65},
		{"largest 4000", largestImage, 4000, 4000, 4998},
	} {
		if got := c.f(c.w, c.h); got != c.want {
			t.Errorf("%s: %dx%d = %d tokens, want %d", c.name, c.w, c.h, got, c.want)
		}
	}
}

// TestTextPerFamily checks each family's count of the same known strings:
// the exact encodings' published counts, and each bound's margin over
// o200k_base ("tiktoken is great!" is 6 o200k_base tokens, all ASCII;
// "日本語" is one piece that is not ASCII).
func TestTextPerFamily(t *testing.T) {
	jp := o200k.count([]byte("日本語"))
	for _, c := range []struct {
		provider, api, model string
		ascii, other         int
	}{
		{"openai", "openai-responses", "gpt-5", 6, jp},
		{"openai", "openai-completions", "gpt-3.5-turbo", 6, cl100k.count([]byte("日本語"))},
		{"anthropic", "anthropic-messages", "claude-sonnet-4-5", 9, scale(jp, 135*250, 100*100)}, // 6 x 1.35 = 8.1
		{"anthropic", "anthropic-messages", "claude-opus-4-7", 11, scale(jp, 183*250, 100*100)},  // 6 x 1.83 = 10.98
		{"google", "google-generative-ai", "gemini-2.5-flash", 8, scale(jp, 125*250, 100*100)},   // 6 x 1.25 = 7.5
		{"mistral", "openai-completions", "mistral-small-latest", 8, scale(jp, 125*250, 100*100)},
		{"qwen", "openai-completions", "qwen3-max", 8, scale(jp, 125*250, 100*100)},
		{"vllm", "openai-completions", "acme-llm-7", 9, scale(jp, 150*250, 100*100)}, // 6 x 1.5
	} {
		cnt := For(c.provider, c.api, c.model)
		if got := cnt.Text([]byte("tiktoken is great!")); got != c.ascii {
			t.Errorf("%s (%s): \"tiktoken is great!\" = %d, want %d", c.model, cnt.Name(), got, c.ascii)
		}
		want := min(c.other, len("日本語"))
		if got := cnt.Text([]byte("日本語")); got != want {
			t.Errorf("%s (%s): \"日本語\" = %d, want %d", c.model, cnt.Name(), got, want)
		}
	}
}
