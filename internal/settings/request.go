package settings

// Request is what only the job can say about the request its history goes
// into next (design §2's options): the runner's clock, the model's context
// window, the tools of the current run, whether this is the retry after a
// refused signature. No configuration key or tenant override sets them, so
// they form no section and have no overlay; this one declaration is both the
// job's options (Options embeds it, so the JSON keys stay at the top of
// options) and what the rules read (stage.Settings.Request). A nil
// pointer is an option the job did not send.
type Request struct {
	// ContextWindowTokens is the model's context window; it sizes
	// pruning's character window and the images cap of large windows.
	ContextWindowTokens *int `json:"context_window_tokens,omitempty"`
	// NowMs is the runner's clock in Unix milliseconds.
	NowMs *int64 `json:"now_ms,omitempty"`
	// AllowedToolNames are the tools of the current run, which tool-call
	// validation keeps (spec §3.5); nil allows every valid name.
	AllowedToolNames []string `json:"allowed_tool_names,omitempty"`
	// ReplayInvalid marks the retry after the provider refused a
	// signature: every signature is stripped (spec §3.4.1).
	ReplayInvalid bool `json:"replay_invalid,omitempty"`
	// PreserveLatestAssistantThinking overrides whether the latest
	// assistant turn keeps its thinking (spec §3.4.3); nil lets the
	// history decide.
	PreserveLatestAssistantThinking *bool `json:"preserve_latest_assistant_thinking,omitempty"`
	// ToolsOffered false says the next request declares no tools, so tool
	// calls and results must go as plain text (default true).
	ToolsOffered *bool `json:"tools_offered,omitempty"`
}

// ContextWindow is the context window the job sent, 0 when it sent none
// (then nothing is sized by it: no pruning, no large-window image cap).
func (r Request) ContextWindow() int {
	if r.ContextWindowTokens == nil {
		return 0
	}
	return *r.ContextWindowTokens
}

// Now is the runner's clock; ok is false when the job sent none (then
// rules use the owning message's timestamp).
func (r Request) Now() (ms int64, ok bool) {
	if r.NowMs == nil {
		return 0, false
	}
	return *r.NowMs, true
}

// NoToolsOffered reports whether the next request declares no tools
// (tools_offered: false), so tool calls and results become text
// (toolcalls.ToolsAsText).
func (r Request) NoToolsOffered() bool {
	return r.ToolsOffered != nil && !*r.ToolsOffered
}
