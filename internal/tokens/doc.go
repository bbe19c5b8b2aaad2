// Package tokens counts the tokens a request takes in a target model's
// context window, as the target would count them, or as a calibrated upper
// bound where the target's tokenizer is not published. It has one job: a
// number per text, image, message and request; the model table (window and
// output reserve) is contract.Model, and deciding what to drop is the
// fitting stage's.
//
// # Tokenizers, per family
//
//   - OpenAI (gpt-4o, gpt-4.1, gpt-5, o1, o3, o4-mini and their -mini and
//     -nano sizes, on openai, azure, openai-codex and any router that names
//     them): o200k_base, exact. gpt-4, gpt-4-turbo and gpt-3.5-turbo:
//     cl100k_base, exact. The vocabularies are the ones OpenAI publishes for
//     tiktoken, embedded in the binary by github.com/tiktoken-go/tokenizer
//     (MIT); nothing is downloaded at run time. The pre-tokenizer is this
//     package's own (pretokenize.go): each encoding's split pattern written
//     out by hand, so that no regular-expression engine runs per byte.
//   - Claude (anthropic, anthropic-vertex, amazon-bedrock): no tokenizer is
//     published. The count is an upper bound: the o200k_base count times a
//     calibrated margin (1.35; 1.83 from Opus 4.7, whose tokenizer is new),
//     and never more than one token per byte. See margins.
//   - Gemini, Mistral, DeepSeek, Qwen, Kimi, GLM, MiniMax and any other
//     model: their vocabularies ship in no Go module (Gemma's and Mistral's
//     tekken are Python and Hugging Face files), so the count is the same
//     kind of bound: o200k_base times the family's margin (1.25; 1.5 for
//     an unknown model), capped at one token per byte. Every bound scales
//     the pieces that are not ASCII by 2.5 more: vocabularies differ most
//     on other scripts.
//
// A byte-level BPE (every tokenizer above) never gives more tokens than the
// text has bytes: Bound is that cap, and no margin takes Text above it, so a
// caller can prove that a history fits from its lengths alone
// (MessageBound, RequestBound) and skip counting.
//
// # Images, tools and overhead
//
// Images count by each provider's documented formula from their pixel
// size (Image), read from the image header (images.Dimensions) without
// decoding pixels. Documents count as their text, a PDF by its pages. Tool definitions count as their JSON text, plus
// Anthropic's tool-use system prompt when any tool is defined; every
// message adds the provider's per-message framing, every request its
// framing and reply priming (Request, Message).
//
// May import: internal/contract, internal/images, internal/transcript.
package tokens
