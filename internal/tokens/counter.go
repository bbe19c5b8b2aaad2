package tokens

import (
	"strings"
	"sync"

	"github.com/hygiene-dev/hygiene/internal/contract"
)

// Counter counts tokens for one target model. A Counter is immutable and
// safe for concurrent use; For returns a shared one per family.
type Counter struct {
	name string
	enc  *encoding
	// num/den scales the encoding's count into a bound for a model whose
	// tokenizer is not published (1/1: the count is exact).
	num, den int
	image    imageFormula
	imageMax int
	// perMessage is the framing every message adds (role and separators);
	// perRequest the request's own framing and reply priming; toolPrompt
	// the system prompt a provider adds when tools are defined.
	perMessage, perRequest, toolPrompt int
}

// Name says which tokenizer or bound the counter uses: "o200k_base",
// "cl100k_base", or "o200k_base×1.35 (claude bound)" and the like.
func (c *Counter) Name() string { return c.name }

// Text returns the tokens of a text. For a bound counter it is the
// encoding's count times the margin (and, for the pieces that are not
// ASCII, times otherScripts as well); never more than one token per byte
// (Bound), which a byte-level BPE never exceeds on valid UTF-8.
func (c *Counter) Text(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	if c.num == c.den {
		return min(c.enc.count(b), c.Bound(len(b)))
	}
	ascii, other := c.enc.countByScript(b)
	return min(scale(ascii, c.num, c.den)+scale(other, c.num*otherScripts, c.den*100), c.Bound(len(b)))
}

// Bound is an upper bound of Text for any text of nBytes bytes, from its
// length alone: a byte-level BPE gives at most one token per byte, and a
// bound counter's margin does not take it above that.
func (c *Counter) Bound(nBytes int) int { return max(nBytes, 0) }

// scale is ceil(n*num/den).
func scale(n, num, den int) int { return (n*num + den - 1) / den }

// The families For tells apart.
var (
	counterMu sync.Mutex
	counters  = map[string]*Counter{}
)

// For returns the counter of a target: the tokenizer the provider uses for
// the model, or the calibrated bound of its family (see the package doc).
// The model id, as every platform spells it, picks the family, and with it
// the tokenizer, the image formula and the framing (a Claude model behind a
// router is still counted as Claude); the provider and API only tell an
// unknown model (contract.Model).
func For(provider, api, model string) *Counter {
	key := familyOf(provider, api, model)
	counterMu.Lock()
	defer counterMu.Unlock()
	if c, ok := counters[key]; ok {
		return c
	}
	c := newCounter(key)
	counters[key] = c
	return c
}

// The counting families.
const (
	famO200k      = "o200k"       // OpenAI models on o200k_base
	famCl100k     = "cl100k"      // gpt-4, gpt-3.5-turbo
	famOSeries    = "o-series"    // o1, o3: o200k with their own image tiles
	famGPT5       = "gpt-5"       // gpt-5 tile figures
	famMini4o     = "gpt-4o-mini" // gpt-4o-mini's image figures
	famPatch162   = "patch-1.62"  // gpt-4.1-mini, gpt-5-mini: 32 px patches x 1.62
	famPatch246   = "patch-2.46"  // gpt-4.1-nano, gpt-5-nano: x 2.46
	famPatch172   = "patch-1.72"  // o4-mini: x 1.72
	famClaude     = "claude"      // Claude up to 4.6: bound
	famClaudeNew  = "claude-4-7"  // Claude Opus 4.7 and later: new tokenizer, 3.75 MP images
	famGemini2    = "gemini-2"    // Gemini 1.5 and 2.x: 258-token tiles
	famGemini3    = "gemini-3"    // Gemini 3: media_resolution defaults
	famMistral    = "mistral"     // tekken: bound
	famOpenWeight = "open-weight" // DeepSeek, Qwen, Kimi, GLM, MiniMax: bound
	famUnknown    = "unknown"     // anything else: the widest bound
)

// familyOf maps a target to its counting family, by the model id as the
// model table reads it (contract.NormalizeModelID), then by the wire for a
// model the id does not tell.
func familyOf(provider, api, model string) string {
	id := contract.NormalizeModelID(model)
	switch {
	case strings.HasPrefix(id, "claude-"):
		if claudeNewTokenizer(id) {
			return famClaudeNew
		}
		return famClaude
	case strings.HasPrefix(id, "gpt-4o-mini"):
		return famMini4o
	case strings.HasPrefix(id, "gpt-4-1-mini"), strings.HasPrefix(id, "gpt-5-mini"):
		return famPatch162
	case strings.HasPrefix(id, "gpt-4-1-nano"), strings.HasPrefix(id, "gpt-5-nano"):
		return famPatch246
	case strings.HasPrefix(id, "o4-mini"):
		return famPatch172
	case strings.HasPrefix(id, "gpt-5"):
		return famGPT5
	case strings.HasPrefix(id, "o1"), strings.HasPrefix(id, "o3"):
		return famOSeries
	case strings.HasPrefix(id, "gpt-4o"), strings.HasPrefix(id, "chatgpt-4o"), strings.HasPrefix(id, "gpt-4-1"),
		strings.HasPrefix(id, "gpt-4-5"), strings.HasPrefix(id, "gpt-oss"):
		return famO200k
	case strings.HasPrefix(id, "gpt-4"), strings.HasPrefix(id, "gpt-3-5"):
		return famCl100k
	case strings.HasPrefix(id, "gemini-3"):
		return famGemini3
	case strings.HasPrefix(id, "gemini-"), strings.HasPrefix(id, "gemma-"):
		return famGemini2
	case contract.Model(provider, api, model).Family == "unknown":
		return famUnknown
	case strings.Contains(id, "stral"), strings.HasPrefix(id, "mistral"), strings.HasPrefix(id, "ministral"),
		strings.HasPrefix(id, "pixtral"), strings.HasPrefix(id, "open-mistral"):
		return famMistral
	}
	return famOpenWeight
}

// claudeNewTokenizer reports whether a normalised Claude id is Opus 4.7 or
// later, whose tokenizer gives 1.0-1.35x the tokens of earlier Claude
// models (Anthropic's Opus 4.7 release notes) and whose vision takes
// images up to 3.75 MP.
func claudeNewTokenizer(id string) bool {
	for _, p := range []string{"claude-opus-4-7", "claude-opus-4-8", "claude-opus-4-9", "claude-opus-5",
		"claude-sonnet-5", "claude-haiku-5", "claude-fable", "claude-mythos"} {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}
