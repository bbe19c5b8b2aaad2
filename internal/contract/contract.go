// Package contract holds what each target provider documents that a request
// must meet, as one data table: turn order, tool-call id and tool-name
// limits, image counts, sides and sizes, request size, text validity,
// thinking signatures and required content. Each fact cites its source.
//
// The policy attaches the contract of a job's target (policy.Policy.Contract)
// and the rules read their provider limits from it, so a limit lives here
// and nowhere else; the final stage "contract" checks every sanitized
// transcript against it (Check), and `worker check` does the same for a file.
// CheckBody checks a provider request body as sent (final turn, system
// text, tool names), by the prefill facts of PrefillOf.
//
// Model (models.go) is the same kind of table per model: the context window,
// the separate input limit, the default and maximum output, each row with
// its source, matched on every platform's spelling of the model id.
//
// May import: internal/images, internal/transcript.
package contract

// Family names a target wire that has one contract.
type Family string

// The target families. A job's family follows from its resolved policy
// (policy.Resolve); Of returns its contract.
const (
	// AnthropicMessages is Anthropic's own Messages API (and a self-hosted
	// proxy of it that resolves to the strict Anthropic policy).
	AnthropicMessages Family = "anthropic-messages"
	// AnthropicCloud is the Anthropic Messages body on Google Vertex AI or
	// on Bedrock InvokeModel.
	AnthropicCloud Family = "anthropic-bedrock-vertex"
	// AnthropicCompatible is a third party's Anthropic-compatible endpoint
	// (minimax, kimi-coding): the Messages wire, without Anthropic's own
	// thinking-signature and turn checks.
	AnthropicCompatible Family = "anthropic-compatible"
	// BedrockConverse is Amazon Bedrock's Converse / ConverseStream API.
	BedrockConverse Family = "bedrock-converse"
	// OpenAIChat is OpenAI's (and Azure OpenAI's) Chat Completions API.
	OpenAIChat Family = "openai-chat-completions"
	// OpenAIResponses is the OpenAI Responses API family.
	OpenAIResponses Family = "openai-responses"
	// Gemini is Google's Gemini API (generative-ai, gemini-cli, vertex).
	Gemini Family = "gemini"
	// Mistral is Mistral's chat API (and any target with strict9 ids).
	Mistral Family = "mistral"
	// OpenAICompatible is a passthrough on the Chat Completions wire
	// (openrouter, github-copilot, vllm, together, ...).
	OpenAICompatible Family = "openai-compatible"
	// Passthrough is any other API: only what every JSON request needs.
	Passthrough Family = "passthrough"
)

// Contract is what one target family accepts. A zero numeric field means
// the provider documents no such limit; a false bool, no such rule.
type Contract struct {
	Family Family

	// FirstTurnUser: the first message must be a user-side turn (user,
	// or a summary or custom message, which the runner sends as user).
	FirstTurnUser bool
	// NoConsecutiveAssistants: two assistant turns must not follow each
	// other.
	NoConsecutiveAssistants bool

	// ToolCallIDs are the ids a tool call and its result may carry, as
	// the wire carries them (see SplitIDs).
	ToolCallIDs IDLimits
	// SplitIDs: the wire sends a stored "call|fc_item" id as two values
	// (SplitCallItem): ToolCallIDs then bounds the call_id and ItemIDs the
	// item id, each on its own; the stored form is never measured.
	SplitIDs bool
	// ItemIDs are the function_call item ids a split id may carry.
	ItemIDs IDLimits
	// ToolNames are the names a tool call may carry.
	ToolNames IDLimits

	// Images bound the image blocks of a request.
	Images ImageLimits
	// Documents say which documents and images by reference the wire
	// carries, and bound the documents of a request.
	Documents DocumentLimits

	// MaxRequestBytes bounds the request body (0: none documented). The
	// check measures the sanitized messages, a lower bound of the body.
	MaxRequestBytes int

	// ValidText: every string is valid UTF-8 with no lone UTF-16
	// surrogate escape. True for every family: each reads JSON bodies.
	ValidText bool
	// SignedThinking: a thinking block replayed in an earlier assistant
	// turn must carry its signature (redacted thinking its data).
	SignedThinking bool
	// NonEmptyContent: no user or assistant turn with empty content and no
	// blank text block.
	NonEmptyContent bool
	// ImagesInUserTurnsOnly: an assistant turn carries no image (user
	// turns and tool results may).
	ImagesInUserTurnsOnly bool
	// ToolPairing: every tool call is answered by a tool result among the
	// results right after its assistant turn, and every tool result
	// answers a call of the assistant turn right before it.
	ToolPairing bool
}

// ImageLimits are a family's documented image limits.
type ImageLimits struct {
	// PerRequest images at most, for a context window of up to
	// LargeContextTokens; PerRequestLargeContext above it (0: the same).
	PerRequest             int
	PerRequestLargeContext int
	LargeContextTokens     int
	// PerMessage images at most in one message.
	PerMessage int
	// MaxSidePx is the longest accepted side; above ManyImages images in
	// one request, ManyImagesMaxSidePx.
	MaxSidePx           int
	ManyImages          int
	ManyImagesMaxSidePx int
	// MaxBase64Bytes bounds an image's base64 length; MaxDecodedBytes its
	// decoded size.
	MaxBase64Bytes  int
	MaxDecodedBytes int
}

// RequestCap is the most images one request may carry for a model with
// the given context window (0 or less: unknown, the smaller cap applies).
// 0 means no documented cap.
func (l ImageLimits) RequestCap(contextWindowTokens int) int {
	if l.PerRequestLargeContext > 0 && contextWindowTokens > l.LargeContextTokens {
		return l.PerRequestLargeContext
	}
	return l.PerRequest
}

// SideCap is the longest side accepted when the request carries count
// images (0: none documented).
func (l ImageLimits) SideCap(count int) int {
	if l.ManyImagesMaxSidePx > 0 && count > l.ManyImages {
		return l.ManyImagesMaxSidePx
	}
	return l.MaxSidePx
}

// The facts shared by several rows, each with its source.
var (
	// anthropicImages: Anthropic vision guide
	// (platform.claude.com/docs/en/build-with-claude/vision, "limits"):
	// up to 600 images per API request, 100 for models with a 200k-token
	// context window; an image over 8000x8000 px is rejected, and over 20
	// images in one request the limit is 2000x2000 px. 5 MB per image
	// (the API counts the base64 payload: shellicar/claude-cli#323).
	anthropicImages = ImageLimits{
		PerRequest: 100, PerRequestLargeContext: 600, LargeContextTokens: 200_000,
		MaxSidePx: 8000, ManyImages: 20, ManyImagesMaxSidePx: 2000,
		MaxBase64Bytes: 5 << 20,
	}
	// anthropicNames: Anthropic tool names match ^[a-zA-Z0-9_-]{1,64}$
	// (Anthropic "Define tools" guide; the API's error text is quoted in
	// API-200/api200#14 and malloydata/publisher#543). A tool_use in the
	// history must name such a tool.
	anthropicNames = IDLimits{MaxLen: 64, Pattern: `^[a-zA-Z0-9_-]+$`}
	// openAINames: OpenAI function names are a-z, A-Z, 0-9, underscores
	// and dashes, at most 64 (OpenAI API reference, function.name); the API
	// checks them in the history too ("messages[9].tool_calls[0].function.
	// name ... '^[a-zA-Z0-9_-]+$'": mcp-use/mcp-use#90).
	openAINames = IDLimits{MaxLen: 64, Pattern: `^[a-zA-Z0-9_-]+$`}
)

// ToolPairing is every tool-calling
// wire's rule: Anthropic "tool_use ids were found without tool_result
// blocks immediately after" and "unexpected tool_use_id found in
// tool_result blocks" (spec §3.7, which the pairing repair exists for);
// OpenAI "An assistant message with 'tool_calls' must be followed by tool
// messages responding to each 'tool_call_id'"; Bedrock and Gemini the same
// for toolUse/toolResult and functionCall/functionResponse.
//
// table is every family's contract. Turn rules are spec §3.12's (Gemini
// and Anthropic turn validation, which the providers' own docs require:
// Gemini "function call turn comes immediately after a user turn or after
// a function response turn", Anthropic Messages "first message must use
// the user role"); content rules are §3.16's Bedrock and §3.4's thinking,
// and Anthropic's "all messages must have non-empty content except for the
// optional final assistant message" (which this check asks of the final
// assistant too: the chain never leaves one empty).
var table = map[Family]Contract{
	AnthropicMessages: {
		ToolPairing:   true,
		Family:        AnthropicMessages,
		FirstTurnUser: true, NoConsecutiveAssistants: true,
		ToolCallIDs: anthropicLimits, ToolNames: anthropicNames,
		Images: anthropicImages,
		// Anthropic API overview, "Request size limits": 32 MB for the
		// standard endpoints, the Messages API included (413 otherwise).
		MaxRequestBytes: 32 << 20,
		// Lone surrogates: "no low surrogate in string" (anthropics/
		// claude-code #2108, #3277, #6273, #6508, #8108).
		ValidText:      true,
		SignedThinking: true, NonEmptyContent: true,
		Documents: anthropicDocuments,
	},
	AnthropicCloud: {
		ToolPairing:   true,
		Family:        AnthropicCloud,
		FirstTurnUser: true, NoConsecutiveAssistants: true,
		ToolCallIDs: anthropicLimits, ToolNames: anthropicNames,
		Images: anthropicImages,
		// Bedrock's Claude Messages request and response page
		// (docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-
		// anthropic-claude-messages-request-response.html): at most 20 MB
		// of payload. Anthropic's vision guide says the limit is lower on
		// Bedrock and Vertex AI than 32 MB; Vertex publishes no figure, so
		// Bedrock's, the documented lower one, applies to both.
		MaxRequestBytes: 20 << 20,
		ValidText:       true,
		SignedThinking:  true, NonEmptyContent: true,
		// Claude on Bedrock and Vertex AI: no url or Files API sources
		// (the Files API is Anthropic's own, in beta there).
		Documents: DocumentLimits{Documents: ByData | ByText, MIMETypes: anthropicDocuments.MIMETypes, MaxPages: anthropicDocuments.MaxPages},
	},
	AnthropicCompatible: {
		ToolPairing: true,
		Family:      AnthropicCompatible,
		ToolCallIDs: anthropicLimits, ToolNames: anthropicNames,
		ValidText: true,
	},
	BedrockConverse: {
		ToolPairing:   true,
		Family:        BedrockConverse,
		FirstTurnUser: true, NoConsecutiveAssistants: true,
		ToolCallIDs: bedrockLimits,
		// Bedrock API reference, ToolSpecification.name: length 1-64,
		// pattern ^[a-zA-Z0-9_-]+$ (a ToolUseBlock names one).
		ToolNames: IDLimits{MaxLen: 64, Pattern: `^[a-zA-Z0-9_-]+$`},
		Images: ImageLimits{
			// Claude behind Converse keeps Anthropic's request caps and
			// many-images side limit (the vision guide above).
			PerRequest: anthropicImages.PerRequest, PerRequestLargeContext: anthropicImages.PerRequestLargeContext,
			LargeContextTokens: anthropicImages.LargeContextTokens,
			ManyImages:         anthropicImages.ManyImages, ManyImagesMaxSidePx: anthropicImages.ManyImagesMaxSidePx,
			// Bedrock API reference, Message.content: up to 20 images;
			// each at most 3.75 MB, 8000 px high and 8000 px wide (and
			// ImagesInUserTurnsOnly below: "You can only include images
			// and documents if the role is user"; a tool result is sent
			// in a user message).
			PerMessage: 20, MaxSidePx: 8000, MaxDecodedBytes: 3840 << 10,
		},
		// The Claude payload limit of the page cited for AnthropicCloud.
		MaxRequestBytes:       20 << 20,
		ImagesInUserTurnsOnly: true,
		ValidText:             true,
		SignedThinking:        true, NonEmptyContent: true,
		Documents: bedrockDocuments,
	},
	OpenAIChat: {
		ToolPairing: true,
		Family:      OpenAIChat,
		ToolCallIDs: chatCompletionsLimits, ToolNames: openAINames,
		ValidText: true,
		Documents: openAIDocuments,
	},
	OpenAIResponses: {
		ToolPairing: true,
		Family:      OpenAIResponses,
		ToolCallIDs: responsesLimits, ToolNames: openAINames,
		SplitIDs: true, ItemIDs: responsesItemLimits,
		ValidText: true,
		Documents: responsesDocuments,
	},
	Gemini: {
		ToolPairing:   true,
		Family:        Gemini,
		FirstTurnUser: true, NoConsecutiveAssistants: true,
		ToolCallIDs: googleLimits,
		// Gemini API reference, FunctionDeclaration.name: starts with a
		// letter or an underscore; a-z, A-Z, 0-9, underscores, colons, dots
		// and dashes; at most 64 characters.
		ToolNames: IDLimits{MaxLen: 64, Pattern: geminiNamePattern},
		// Gemini image understanding guide (as quoted on
		// discuss.ai.google.dev/t/43061): up to 3,600 image files per
		// request.
		Images:    ImageLimits{PerRequest: 3600},
		ValidText: true,
		Documents: geminiDocuments,
	},
	Mistral: {
		ToolPairing: true,
		Family:      Mistral,
		ToolCallIDs: mistralLimits,
		// Mistral's function-calling API takes OpenAI's function schema
		// (docs.mistral.ai, function calling), so OpenAI's name rule.
		ToolNames: openAINames,
		ValidText: true,
		Documents: mistralDocuments,
	},
	OpenAICompatible: {
		ToolPairing: true,
		Family:      OpenAICompatible,
		// The Chat Completions wire: Azure's 40-character ids (spec §6)
		// and OpenAI's name rule, which OpenAI-compatible servers copy.
		ToolCallIDs: chatCompletionsLimits, ToolNames: openAINames,
		ValidText: true,
		// Image URLs are the one reference OpenAI-compatible servers
		// share; a document goes as its text only.
		Documents: DocumentLimits{Documents: ByText, Images: ByURL},
	},
	Passthrough: {
		Family:    Passthrough,
		ValidText: true,
		Documents: DocumentLimits{Documents: ByText},
	},
}

// Of returns the contract of a family; an unknown family gets Passthrough's.
func Of(f Family) Contract {
	if c, ok := table[f]; ok {
		return c
	}
	return table[Passthrough]
}

// Families lists every family of the table, in declaration order.
func Families() []Family {
	return []Family{AnthropicMessages, AnthropicCloud, AnthropicCompatible, BedrockConverse, OpenAIChat,
		OpenAIResponses, Gemini, Mistral, OpenAICompatible, Passthrough}
}
