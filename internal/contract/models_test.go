package contract

import "testing"

// TestModelTable checks the window, the separate input limit, the default
// reserve and the maximum output of each family, by every platform's
// spelling of the same model.
func TestModelTable(t *testing.T) {
	for _, c := range []struct {
		provider, api, model   string
		window, input, def, mx int
	}{
		// Claude by generation, on the API, Bedrock, Vertex and routers.
		{"anthropic", "anthropic-messages", "claude-3-haiku-20240307", 200_000, 0, 4_096, 4_096},
		{"anthropic", "anthropic-messages", "claude-3-opus-20240229", 200_000, 0, 4_096, 4_096},
		{"anthropic", "anthropic-messages", "claude-3-5-sonnet-20241022", 200_000, 0, 8_192, 8_192},
		{"amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-3-5-haiku-20241022-v1:0", 200_000, 0, 8_192, 8_192},
		{"anthropic", "anthropic-messages", "claude-3-7-sonnet-latest", 200_000, 0, 32_000, 64_000},
		{"anthropic", "anthropic-messages", "claude-sonnet-4-20250514", 200_000, 0, 32_000, 64_000},
		{"anthropic", "anthropic-messages", "claude-opus-4-20250514", 200_000, 0, 32_000, 32_000},
		{"anthropic", "anthropic-messages", "claude-opus-4-1", 200_000, 0, 32_000, 32_000},
		{"anthropic", "anthropic-messages", "claude-sonnet-4-5", 200_000, 0, 32_000, 64_000},
		{"amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5-20250929-v1:0", 200_000, 0, 32_000, 64_000},
		{"amazon-bedrock", "bedrock-converse-stream", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", 200_000, 0, 32_000, 64_000},
		{"amazon-bedrock", "anthropic-messages", "global.anthropic.claude-haiku-4-5-20251001-v1:0", 200_000, 0, 32_000, 64_000},
		{"anthropic-vertex", "anthropic-messages", "claude-sonnet-4-5@20250929", 200_000, 0, 32_000, 64_000},
		{"openrouter", "openai-completions", "anthropic/claude-sonnet-4.5", 200_000, 0, 32_000, 64_000},
		{"anthropic", "anthropic-messages", "claude-opus-4-5-20251101", 200_000, 0, 32_000, 64_000},
		{"anthropic", "anthropic-messages", "claude-opus-4-6", 1_000_000, 0, 32_000, 128_000},
		{"anthropic", "anthropic-messages", "claude-sonnet-4-6", 1_000_000, 0, 32_000, 128_000},
		{"anthropic-vertex", "anthropic-messages", "claude-opus-4-7@20260415", 1_000_000, 0, 32_000, 128_000},
		{"anthropic", "anthropic-messages", "claude-sonnet-5", 1_000_000, 0, 32_000, 128_000},
		// OpenAI.
		{"openai", "openai-responses", "gpt-5", 400_000, 272_000, 32_000, 128_000},
		{"openai", "openai-responses", "gpt-5-mini-2025-08-07", 400_000, 272_000, 32_000, 128_000},
		{"openai-codex", "openai-codex-responses", "gpt-5.1-codex", 400_000, 272_000, 32_000, 128_000},
		{"openai", "openai-completions", "gpt-5-chat-latest", 128_000, 0, 16_384, 16_384},
		{"openai", "openai-responses", "gpt-5.4", 1_050_000, 0, 32_000, 128_000},
		{"openai", "openai-completions", "gpt-4.1", 1_047_576, 0, 32_000, 32_768},
		{"azure", "azure-openai-responses", "gpt-4.1-mini", 1_047_576, 0, 32_000, 32_768},
		{"openai", "openai-completions", "gpt-4o", 128_000, 0, 16_384, 16_384},
		{"openai", "openai-completions", "gpt-4o-mini", 128_000, 0, 16_384, 16_384},
		{"openai", "openai-responses", "o1", 200_000, 0, 32_000, 100_000},
		{"openai", "openai-responses", "o3", 200_000, 0, 32_000, 100_000},
		{"openai", "openai-responses", "o4-mini", 200_000, 0, 32_000, 100_000},
		{"openai", "openai-completions", "gpt-4-0613", 8_192, 0, 8_192, 8_192},
		// Gemini.
		{"google", "google-generative-ai", "gemini-2.0-flash", 1_048_576, 1_048_576, 8_192, 8_192},
		{"google", "google-generative-ai", "gemini-2.5-pro", 1_048_576, 1_048_576, 32_000, 65_536},
		{"google-vertex", "google-vertex", "gemini-2.5-flash", 1_048_576, 1_048_576, 32_000, 65_536},
		{"google", "google-generative-ai", "gemini-3-pro-preview", 1_048_576, 1_048_576, 32_000, 65_536},
		// Mistral.
		{"mistral", "openai-completions", "mistral-large-latest", 128_000, 0, 32_000, 128_000},
		{"mistral", "openai-completions", "mistral-large-2512", 256_000, 0, 32_000, 256_000},
		{"mistral", "openai-completions", "mistral-large-2411", 128_000, 0, 32_000, 128_000},
		{"amazon-bedrock", "bedrock-converse-stream", "mistral.mistral-large-2407-v1:0", 128_000, 0, 32_000, 128_000},
		{"mistral", "openai-completions", "mistral-medium-2508", 128_000, 0, 32_000, 128_000},
		{"mistral", "openai-completions", "mistral-small-latest", 128_000, 0, 32_000, 128_000},
		{"mistral", "openai-completions", "codestral-latest", 256_000, 0, 32_000, 256_000},
		{"mistral", "openai-completions", "magistral-medium-latest", 128_000, 0, 32_000, 128_000},
		// The open-weight families.
		{"deepseek", "openai-completions", "deepseek-chat", 128_000, 0, 8_000, 8_000},
		{"deepseek", "openai-completions", "deepseek-reasoner", 128_000, 0, 32_000, 64_000},
		{"qwen", "openai-completions", "qwen3-max", 262_144, 0, 32_000, 65_536},
		{"qwen", "openai-completions", "qwen3-coder-plus", 1_000_000, 0, 32_000, 65_536},
		{"moonshot", "openai-completions", "kimi-k2-0905-preview", 262_144, 0, 32_000, 262_144},
		{"kimi-coding", "anthropic-messages", "kimi-k2-thinking", 262_144, 0, 32_000, 262_144},
		{"zai", "openai-completions", "glm-4.6", 200_000, 0, 32_000, 128_000},
		{"zai", "openai-completions", "glm-4.5", 128_000, 0, 32_000, 96_000},
		{"minimax", "anthropic-messages", "MiniMax-M2", 204_800, 0, 32_000, 128_000},
	} {
		l := Model(c.provider, c.api, c.model)
		if !l.Known || l.ContextWindow != c.window || l.MaxInput != c.input || l.DefaultOutput != c.def || l.MaxOutput != c.mx {
			t.Errorf("Model(%s, %s, %s) = %+v, want window %d, input %d, output %d/%d",
				c.provider, c.api, c.model, l, c.window, c.input, c.def, c.mx)
		}
		if l.Source == "" {
			t.Errorf("%s: no source", c.model)
		}
	}
}

// TestModelUnknown checks the conservative default.
func TestModelUnknown(t *testing.T) {
	for _, m := range []string{"", "acme-llm-7", "llama-3.1-8b-instruct"} {
		if l := Model("vllm", "openai-completions", m); l.Known || l != UnknownModel {
			t.Errorf("Model(%q) = %+v, want UnknownModel", m, l)
		}
	}
}

// TestInputBudget checks the budget with a reserve: the window less the
// reserve, capped by a separate input limit (GPT-5), and the 1M beta.
func TestInputBudget(t *testing.T) {
	if got := Model("openai", "openai-responses", "gpt-5").InputBudget(32_000); got != 272_000 {
		t.Errorf("gpt-5 budget = %d, want 272000", got)
	}
	if got := Model("openai", "openai-responses", "gpt-5").InputBudget(200_000); got != 200_000 {
		t.Errorf("gpt-5 budget with a 200k reserve = %d, want 200000", got)
	}
	s45 := Model("anthropic", "anthropic-messages", "claude-sonnet-4-5")
	if got := s45.InputBudget(s45.DefaultOutput); got != 168_000 {
		t.Errorf("sonnet 4.5 budget = %d, want 168000", got)
	}
	if got := s45.WithBetas([]string{"fine-grained-tool-streaming-2025-05-14", "context-1m-2025-08-07"}).ContextWindow; got != 1_000_000 {
		t.Errorf("sonnet 4.5 with the 1M beta: window %d", got)
	}
	if got := s45.WithBetas([]string{"other"}).ContextWindow; got != 200_000 {
		t.Errorf("sonnet 4.5 without the 1M beta: window %d", got)
	}
	if got := Model("anthropic", "anthropic-messages", "claude-opus-4-5").WithBetas([]string{"context-1m-2025-08-07"}).ContextWindow; got != 200_000 {
		t.Errorf("opus 4.5 has no 1M beta: window %d", got)
	}
}

// TestNormalizeModelID checks each platform's spelling reduced to the
// table's key, and that an id with no dotted version (most) is read
// without a copy.
func TestNormalizeModelID(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"claude-opus-4-6", "claude-opus-4-6"},
		{" Claude-Opus-4-6 ", "claude-opus-4-6"},
		{"anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5-20250929"},
		{"claude-sonnet-4-5@20250929", "claude-sonnet-4-5"},
		{"gpt-4.1.2", "gpt-4-1-2"},
		{"gpt-5.", "gpt-5."},
		{".5", ".5"},
		{"o3.mini", "o3.mini"},
	} {
		if got := NormalizeModelID(c.in); got != c.want {
			t.Errorf("NormalizeModelID(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = NormalizeModelID("claude-opus-4-6") }); n != 0 {
		t.Errorf("NormalizeModelID of a plain id: %v allocations, want 0", n)
	}
}
