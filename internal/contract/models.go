package contract

import (
	"strings"
)

// ModelLimits are one model's token limits: how much a request may hold and
// how much output the runner reserves room for. Every row of the table
// below cites its source (Source).
type ModelLimits struct {
	// ContextWindow is the model's context window in tokens: what input
	// and output together may hold (Anthropic: "the input plus max_tokens").
	ContextWindow int
	// MaxInput bounds the input on its own where the provider documents a
	// separate input limit (GPT-5: 272,000 of its 400,000; Gemini: the input
	// token limit); 0 means only ContextWindow bounds the input.
	MaxInput int
	// DefaultOutput is the output the runner reserves when the job names
	// none: pi-ai, OpenClaw's model layer, sends max_tokens = min(the
	// model's maximum output, 32,000) by default (buildBaseOptions).
	DefaultOutput int
	// MaxOutput is the most output tokens one response may have.
	MaxOutput int
	// BetaWindow is the context window an opt-in enables (BetaHeader), 0
	// when the model has none.
	BetaWindow int
	// BetaHeader is the anthropic-beta value that enables BetaWindow
	// ("context-1m-2025-08-07" for Claude Sonnet 4 and 4.5).
	BetaHeader string
	// Family names the row that matched ("claude-sonnet-4-5",
	// "gpt-5", ...), or "unknown".
	Family string
	// Known is false for a model no row matches: the limits are then
	// UnknownModel's conservative defaults.
	Known bool
	// Source is where the figures come from.
	Source string
}

// defaultOutputCap is pi-ai's default max_tokens cap (buildBaseOptions:
// Math.min(model.maxTokens, 32000)), the output OpenClaw reserves when a
// run sets none.
const defaultOutputCap = 32_000

// InputBudget is the most input tokens a request may carry when reserve
// tokens are kept for the output: ContextWindow - reserve, and at most
// MaxInput when the model has one. Never below 0.
func (l ModelLimits) InputBudget(reserve int) int {
	n := l.ContextWindow - max(reserve, 0)
	if l.MaxInput > 0 && l.MaxInput < n {
		n = l.MaxInput
	}
	return max(n, 0)
}

// WithBetas returns the limits with BetaWindow in force when betas (the
// request's anthropic-beta values, as a job's options list them) name
// BetaHeader; else l unchanged.
func (l ModelLimits) WithBetas(betas []string) ModelLimits {
	if l.BetaHeader == "" {
		return l
	}
	for _, b := range betas {
		if strings.TrimSpace(b) == l.BetaHeader {
			l.ContextWindow = l.BetaWindow
			return l
		}
	}
	return l
}

// UnknownModel is the limits of a model no row matches: the smallest
// window of a current tool-calling model the table holds (128,000 tokens:
// GPT-4o, Mistral Medium and Small, DeepSeek, Kimi K2's first release), and
// 32,000 tokens of output reserved, so an unknown model is fitted as the
// most constrained of the models a runner is likely to name.
var UnknownModel = ModelLimits{
	ContextWindow: 128_000, DefaultOutput: defaultOutputCap, MaxOutput: defaultOutputCap,
	Family: "unknown",
	Source: "conservative default: the smallest current tool-calling window in this table (128k)",
}

// modelRow is one row of the model table: the first row whose every
// prefix-or-substring rule matches the normalised model id wins.
type modelRow struct {
	family string
	// match: the normalised id starts with one of prefixes
	prefixes []string
	window   int
	maxInput int
	maxOut   int
	// betaWindow and betaHeader: see ModelLimits.
	betaWindow int
	betaHeader string
	source     string
}

// The documentation of each family, once.
const (
	srcClaude = "platform.claude.com/docs/en/about-claude/models/overview and each model's page " +
		"(platform.claude.com/docs/en/models/<model>/overview): context window and max output"
	srcClaude1M = srcClaude + "; 1M window: platform.claude.com/docs/en/build-with-claude/context-windows " +
		"(beta header context-1m-2025-08-07 for Sonnet 4 and 4.5)"
	srcGPT5  = "platform.openai.com/docs/models/gpt-5: 400,000 context, 128,000 max output (272,000 input)"
	srcGPT41 = "platform.openai.com/docs/models/gpt-4.1: 1,047,576 context, 32,768 max output"
	srcGPT4o = "platform.openai.com/docs/models/gpt-4o (and gpt-4o-mini): 128,000 context, 16,384 max output"
	srcO     = "platform.openai.com/docs/models/o3 (o1, o3-mini, o4-mini): 200,000 context, 100,000 max output"
	srcO1M   = "platform.openai.com/docs/models/o1-mini: 128,000 context, 65,536 max output"
	srcGPT4  = "platform.openai.com/docs/models/gpt-4-turbo (gpt-4, gpt-3.5-turbo): context and max output"
	srcGem   = "ai.google.dev/gemini-api/docs/models (model pages: input token limit 1,048,576, output 65,536 " +
		"for 2.5 and 3, 8,192 for 2.0); Vertex AI's model pages give the same"
	srcMistral = "docs.mistral.ai/getting-started/models/models_overview: context per model " +
		"(the output shares the window; no separate maximum is documented)"
	srcDeepSeek = "api-docs.deepseek.com/quick_start/pricing: 128K context; deepseek-chat max output 8K, deepseek-reasoner 64K"
	srcQwen     = "alibabacloud.com/help/en/model-studio/models: context and max output per model"
	srcKimi     = "platform.moonshot.ai/docs/introduction: kimi-k2-0905, k2-turbo and k2-thinking 256K (262,144); " +
		"kimi-k2-0711 128K (131,072)"
	srcGLM     = "docs.z.ai/guides/llm: GLM-4.6 and later 200K context, 128K max output; GLM-4.5 128K context, 96K output"
	srcMiniMax = "platform.minimax.io/docs/guides/text-generation: MiniMax-M2 and M2.1 204,800 context, " +
		"128K max output; MiniMax-M1 1,000,000 context, 80K output"
)

// models is the model table, most specific prefixes first. Ids are matched
// after normalise (lower case; the Bedrock region and vendor prefixes,
// Bedrock's -v1:0 and Vertex's @date suffixes and a router's vendor/
// prefix removed; dots in version numbers read as dashes).
var models = []modelRow{
	// Claude, by generation. 4.6 and later Opus and Sonnet (and every 5.x,
	// Fable and Mythos): 1M window, 128K output, no header needed.
	{family: "claude-1m", prefixes: []string{
		"claude-opus-4-6", "claude-opus-4-7", "claude-opus-4-8", "claude-opus-4-9", "claude-sonnet-4-6",
		"claude-sonnet-4-7", "claude-sonnet-4-8", "claude-opus-5", "claude-sonnet-5", "claude-fable", "claude-mythos",
	}, window: 1_000_000, maxOut: 128_000, source: srcClaude},
	{family: "claude-sonnet-4-5", prefixes: []string{"claude-sonnet-4-5"},
		window: 200_000, maxOut: 64_000, betaWindow: 1_000_000, betaHeader: "context-1m-2025-08-07", source: srcClaude1M},
	{family: "claude-4-5", prefixes: []string{"claude-opus-4-5", "claude-haiku-4-5"},
		window: 200_000, maxOut: 64_000, source: srcClaude},
	{family: "claude-opus-4-1", prefixes: []string{"claude-opus-4-1", "claude-opus-4"},
		window: 200_000, maxOut: 32_000, source: srcClaude},
	{family: "claude-sonnet-4", prefixes: []string{"claude-sonnet-4"},
		window: 200_000, maxOut: 64_000, betaWindow: 1_000_000, betaHeader: "context-1m-2025-08-07", source: srcClaude1M},
	{family: "claude-3-7-sonnet", prefixes: []string{"claude-3-7-sonnet"},
		window: 200_000, maxOut: 64_000, source: srcClaude},
	{family: "claude-3-5", prefixes: []string{"claude-3-5-"},
		window: 200_000, maxOut: 8_192, source: srcClaude},
	{family: "claude-3", prefixes: []string{"claude-3-"},
		window: 200_000, maxOut: 4_096, source: srcClaude},
	{family: "claude", prefixes: []string{"claude-haiku-", "claude-"},
		window: 200_000, maxOut: 64_000, source: srcClaude + " (an unlisted Claude: the 200k window of the non-1M rows)"},

	// OpenAI.
	{family: "gpt-5-chat", prefixes: []string{"gpt-5-chat", "gpt-5-1-chat", "gpt-5-2-chat"},
		window: 128_000, maxOut: 16_384, source: "platform.openai.com/docs/models/gpt-5-chat-latest: 128,000 context, 16,384 max output"},
	{family: "gpt-5-4", prefixes: []string{"gpt-5-4", "gpt-5-5"}, window: 1_050_000, maxOut: 128_000,
		source: "platform.openai.com/docs/models/gpt-5.4 (and gpt-5.5): 1,050,000 context, 128,000 max output"},
	{family: "gpt-5", prefixes: []string{"gpt-5"},
		window: 400_000, maxInput: 272_000, maxOut: 128_000, source: srcGPT5},
	{family: "gpt-4-1", prefixes: []string{"gpt-4-1"}, window: 1_047_576, maxOut: 32_768, source: srcGPT41},
	{family: "gpt-4o", prefixes: []string{"gpt-4o", "chatgpt-4o"}, window: 128_000, maxOut: 16_384, source: srcGPT4o},
	{family: "o1-mini", prefixes: []string{"o1-mini"}, window: 128_000, maxOut: 65_536, source: srcO1M},
	{family: "o1-preview", prefixes: []string{"o1-preview"}, window: 128_000, maxOut: 32_768,
		source: "platform.openai.com/docs/models/o1-preview: 128,000 context, 32,768 max output"},
	{family: "o-series", prefixes: []string{"o1", "o3", "o4-mini"}, window: 200_000, maxOut: 100_000, source: srcO},
	{family: "gpt-4-turbo", prefixes: []string{"gpt-4-turbo", "gpt-4-1106", "gpt-4-0125"}, window: 128_000, maxOut: 4_096, source: srcGPT4},
	{family: "gpt-4", prefixes: []string{"gpt-4"}, window: 8_192, maxOut: 8_192, source: srcGPT4},
	{family: "gpt-3-5-turbo", prefixes: []string{"gpt-3-5-turbo"}, window: 16_385, maxOut: 4_096, source: srcGPT4},

	// Gemini (Google AI and Vertex AI).
	{family: "gemini-1-5-pro", prefixes: []string{"gemini-1-5-pro"}, window: 2_097_152, maxInput: 2_097_152, maxOut: 8_192, source: srcGem},
	{family: "gemini-2-0", prefixes: []string{"gemini-2-0", "gemini-1-5"}, window: 1_048_576, maxInput: 1_048_576, maxOut: 8_192, source: srcGem},
	{family: "gemini", prefixes: []string{"gemini-2-5", "gemini-3", "gemini-"}, window: 1_048_576, maxInput: 1_048_576, maxOut: 65_536, source: srcGem},

	// Mistral.
	{family: "mistral-large-3", prefixes: []string{"mistral-large-3", "mistral-large-2512"},
		window: 256_000, maxOut: 256_000, source: srcMistral + "; Mistral Large 3 (mistral-large-2512): 256k"},
	// mistral-large-latest: an alias whose model moves; Large 2's 128k, the
	// smaller window it has named, so that no alias move makes a payload too
	// long.
	{family: "mistral-large", prefixes: []string{"mistral-large"}, window: 128_000, maxOut: 128_000,
		source: srcMistral + "; Mistral Large 2.x: 128k (mistral-large-latest: the smaller of the windows it has named)"},
	{family: "codestral", prefixes: []string{"codestral", "devstral"}, window: 256_000, maxOut: 256_000, source: srcMistral + "; Codestral 25.08, Devstral 2: 256k"},
	{family: "magistral", prefixes: []string{"magistral"}, window: 128_000, maxOut: 128_000, source: srcMistral + "; Magistral 1.2: 128k"},
	{family: "mistral", prefixes: []string{"mistral-medium", "mistral-small", "ministral", "pixtral", "open-mistral", "mistral-"},
		window: 128_000, maxOut: 128_000, source: srcMistral + "; Medium 3.x, Small 3.x, Ministral, Pixtral: 128k"},

	// DeepSeek, Qwen, Kimi, GLM, MiniMax.
	{family: "deepseek-reasoner", prefixes: []string{"deepseek-reasoner", "deepseek-r1", "r1"}, window: 128_000, maxOut: 64_000, source: srcDeepSeek},
	{family: "deepseek", prefixes: []string{"deepseek-"}, window: 128_000, maxOut: 8_000, source: srcDeepSeek},
	{family: "qwen-1m", prefixes: []string{"qwen3-coder-plus", "qwen-plus", "qwen-flash", "qwen3-coder-flash", "qwen-turbo"},
		window: 1_000_000, maxOut: 65_536, source: srcQwen + " (qwen-plus, qwen-flash, qwen3-coder-plus: 1,000,000)"},
	{family: "qwen3-max", prefixes: []string{"qwen3-max", "qwen3-coder", "qwen3-235b", "qwen3-"},
		window: 262_144, maxOut: 65_536, source: srcQwen + " (qwen3-max, qwen3-coder: 262,144)"},
	{family: "qwen", prefixes: []string{"qwen-max", "qwen"}, window: 32_768, maxOut: 8_192, source: srcQwen + " (qwen-max: 32,768)"},
	{family: "kimi-k2-0711", prefixes: []string{"kimi-k2-0711", "moonshot-v1-128k"}, window: 131_072, maxOut: 131_072, source: srcKimi},
	{family: "kimi", prefixes: []string{"kimi-", "moonshot-"}, window: 262_144, maxOut: 262_144, source: srcKimi},
	{family: "glm-4-5", prefixes: []string{"glm-4-5"}, window: 128_000, maxOut: 96_000, source: srcGLM},
	{family: "glm", prefixes: []string{"glm-"}, window: 200_000, maxOut: 128_000, source: srcGLM},
	{family: "minimax-m1", prefixes: []string{"minimax-m1"}, window: 1_000_000, maxOut: 80_000, source: srcMiniMax},
	{family: "minimax", prefixes: []string{"minimax-"}, window: 204_800, maxOut: 128_000, source: srcMiniMax},
}

// Model returns the token limits of a target model. The provider and API
// are not needed to tell a model (its id names it on every platform) but
// are taken so a platform's own limits can be told apart where they differ;
// no such difference is documented today. A model no row matches gets
// UnknownModel.
func Model(provider, api, model string) ModelLimits {
	_, _ = provider, api
	id := NormalizeModelID(model)
	for _, r := range models {
		for _, p := range r.prefixes {
			if strings.HasPrefix(id, p) {
				return ModelLimits{
					ContextWindow: r.window, MaxInput: r.maxInput,
					DefaultOutput: min(r.maxOut, defaultOutputCap), MaxOutput: r.maxOut,
					BetaWindow: r.betaWindow, BetaHeader: r.betaHeader,
					Family: r.family, Known: true, Source: r.source,
				}
			}
		}
	}
	return UnknownModel
}

// bedrockRegions are the geography prefixes of Bedrock's cross-region
// inference profiles ("us.anthropic.claude-…", "global.anthropic.claude-…").
var bedrockRegions = []string{"us.", "eu.", "apac.", "global.", "jp.", "au.", "us-gov.", "ca."}

// NormalizeModelID reduces a model id as each platform spells it to the
// form the model table is keyed by: lower case; a router's "vendor/" prefix
// (OpenRouter's "anthropic/claude-sonnet-4.5") and Bedrock's region and
// vendor prefixes ("us.anthropic.") dropped; Bedrock's version suffix
// ("-v1:0", ":0") and Vertex's "@20250929" dropped; a dot between digits
// ("4.5", "gpt-4.1") read as a dash, as Anthropic's and OpenAI's own ids
// spell versions.
func NormalizeModelID(model string) string {
	id := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	for _, r := range bedrockRegions {
		if strings.HasPrefix(id, r) {
			id = id[len(r):]
			break
		}
	}
	for _, vendor := range []string{"anthropic.", "meta.", "mistral.", "deepseek.", "qwen.", "moonshot.", "openai.", "minimax.", "zai."} {
		if strings.HasPrefix(id, vendor) {
			id = id[len(vendor):]
			break
		}
	}
	if i := strings.IndexByte(id, '@'); i >= 0 {
		id = id[:i]
	}
	if i := strings.IndexByte(id, ':'); i >= 0 {
		id = id[:i]
	}
	if i := strings.LastIndex(id, "-v"); i >= 0 && i+2 < len(id) && isDigits(id[i+2:]) {
		id = id[:i]
	}
	return versionDashes(id)
}

// versionDashes is id with each dot between two digits read as a dash;
// id itself (no copy) when it has none, as most ids do.
func versionDashes(id string) string {
	var b []byte
	for i := 1; i+1 < len(id); i++ {
		if id[i] == '.' && isDigit(id[i-1]) && isDigit(id[i+1]) {
			if b == nil {
				b = []byte(id)
			}
			b[i] = '-'
		}
	}
	if b == nil {
		return id
	}
	return string(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isDigits(s string) bool {
	for i := range len(s) {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
