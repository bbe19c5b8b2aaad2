// Package wire renders a sanitized transcript as the request body of the
// target provider's own API, so that a runner which does not speak
// OpenClaw's message model (pi-ai) can send it as it is. One file per
// format:
//
//	anthropic.go  Anthropic Messages       messages (+ system, tools)
//	bedrock.go    Amazon Bedrock Converse  messages (+ system, toolConfig)
//	chat.go       OpenAI Chat Completions  messages (+ tools); also Mistral chat
//	responses.go  OpenAI Responses         input items (+ instructions, tools)
//	gemini.go     Gemini generateContent   contents (+ systemInstruction, tools)
//
// FormatFor picks the format from the target's API; Render writes the body's
// history part, the system prompt and the tools (job options `system` and
// `tools`); the runner adds its model parameters (model, max_tokens, ...).
//
// # The final turn
//
// PlaceNext puts the job option `next` (the turns the runner sends next)
// after the history before the rules run, so they are sanitized with it and
// end both the messages and the body. Without it, FinalTurn judges a
// body that ends with the assistant's turn (an assistant message the body
// writes nothing of does not count) by the model's prefill rule
// (contract.PrefillOf): trimmed, marked prefix: true (Mistral, continue:
// true), or refused with the sentence of the `unsendable` dead letter.
// CheckOptions checks the options per format; a blank system prompt is
// dropped (systemTexts). Tool names the target refuses were renamed by the
// chain (toolcalls.ToolNames), in the history and in `tools` alike.
//
// # One source of truth
//
// The body holds every text, call, result, image, document and (Anthropic)
// server-tool block of the sanitized messages; texts that must share one
// string are joined with TextSeparator, a blank line.
//
// # Documents and images by reference
//
// Documents (transcript.BlockDocument) and images by URL, file id or S3
// location are read from every format (a file whose MIME type is not
// image/* is a document, so a PDF never takes the image path) and written
// in the target's own shape where its format has a place for them
// (contract.BodyFormat.Media); a plain-text document with no document
// place is its text. Where there is none, the renderer writes the text
// that names the file (Block.MediaPlaceholder): the chain's stage
// "documents" has already replaced, and counted, whatever the target's
// contract has no place for, so this is only for a caller that renders
// without the chain. docs/formats.md tables them per target.
//
// # Reading a body (parse_*.go)
//
// Parse is the other way: a request body of any of the six formats (a job's
// request_format and request) read into the message model, one parser per
// format beside its renderer (parse_anthropic.go, parse_bedrock.go,
// parse_chat.go for Chat Completions and Mistral, parse_responses.go,
// parse_gemini.go). The body's system prompt and tools become the job's
// system and tools; each assistant turn gets the job's source (provider,
// api, model). What only the input's format carries (Anthropic
// cache_control and citations, Gemini thought signatures on text and thought
// parts, Responses reasoning items and item ids, signed thinking) is kept in
// the model when the target's format is the same, so that render(parse(B))
// is B, and dropped and counted otherwise (Parsed.Dropped, the Loss kinds;
// docs/formats.md tables them per pair).
//
// # Copying, not decoding
//
// Every text, id, signature and base64 image is copied from the
// transcript's bytes as the raw JSON string it is: base64 is never decoded
// and re-encoded (a data URL is the string's body spliced after its
// prefix). Texts are decoded only to join several into one string, and call
// arguments are compacted to write them as the JSON string OpenAI wants.
// The output is a pure function of the messages' bytes, the policy and the
// options: same job, same bytes.
//
// # What is left out
//
// A part the target format has no place for is not sent: thinking without a
// signature the target can verify (Anthropic, Bedrock), thinking that is not
// the target's own (Responses takes its reasoning items only, Gemini its own
// thoughts, signed or not, Chat Completions none but the reasoning_content below),
// videos and unknown block types (a document or an image by reference
// becomes its placeholder text instead: see above), and messages of roles
// no provider has (bashExecution and other unknown roles).
// compactionSummary and branchSummary turns are sent as user text (their
// summary), custom messages as user turns with their content (pi's
// convertToLlm). A message left with nothing to send is skipped.
//
// # Wire-only repairs
//
// Some refusals exist only at the wire, after the chain's rules; each is a
// rule of its renderer, documented there with its source:
//
//   - DeepSeek, Kimi / Moonshot (chat.go, wantsReasoningContent):
//     reasoning_content on every assistant tool-call turn, "" when the
//     history has no thinking for it. Source: api-docs.deepseek.com/guides/thinking_mode;
//     anomalyco/opencode#24722, #25758; RooCodeInc/Roo-Code#10171.
//   - Gemini 3 and later (gemini.go, needsSignatureSentinel): the
//     "skip_thought_signature_validator" signature on the first unsigned
//     functionCall of each step of the current turn. Gemini 2.5 and the
//     Gemini 3 image models do not validate, so they get none. Source:
//     ai.google.dev/gemini-api/docs/thought-signatures, and the Vertex AI page
//     of the same name.
//   - Anthropic Messages and Bedrock Converse (anthropic.go, bedrock.go):
//     tool_result / toolResult blocks first in their user message,
//     consecutive results merged into one user message, consecutive turns of
//     one role merged. Source: docs.anthropic.com tool use ("tool_result
//     blocks must come first"); Converse requires alternating roles.
//   - Chat Completions and Mistral (chat.go): a tool message takes no image,
//     so tool-result images move to one user message right after the run of
//     results.
//   - Mistral (chat.go): an assistant turn between a tool message and a user
//     message, which Mistral refuses ("Unexpected role 'user' after role
//     'tool'": NousResearch/hermes-agent#20154, zed-industries/zed#37021).
//   - Bedrock Converse (bedrock.go): toolConfig whenever the history has tool
//     blocks (vxcontrol/pentagi#160, aws-samples/bedrock-access-gateway#239),
//     from the job's `tools`. In the service a Bedrock job that renders a
//     request and lists no tools has its tool history turned into text
//     before rendering (ToolsAsText), so no tool is declared that the runner
//     does not offer; a direct caller of Render that passes tool blocks and
//     no tools gets the tools the history names, each with the permissive
//     input schema {"type":"object"}, so the body stays sendable. And a text
//     in an empty toolResult, which Converse refuses with status error.
//
// Conformance with each provider's own SDK request types is tested in the
// separate module test/wiresdk (so the SDKs stay out of this module).
//
// May import: internal/contract, internal/policy, internal/transcript.
package wire
