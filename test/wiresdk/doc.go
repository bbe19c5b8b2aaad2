// Package wiresdk checks the request bodies of package wire against the
// providers' own Go SDK request types: every body must unmarshal into the
// SDK's parameter type and marshal back to semantically equal JSON, so that
// no member is unknown to the SDK or dropped by it.
//
//	Anthropic Messages        anthropic-sdk-go        anthropic.MessageNewParams
//	OpenAI Chat Completions   openai-go/v3            openai.ChatCompletionNewParams
//	Mistral chat              openai-go/v3            openai.ChatCompletionNewParams (no Go SDK of Mistral's own)
//	OpenAI Responses          openai-go/v3            responses.ResponseNewParams
//	Gemini generateContent    google.golang.org/genai genai.Content, genai.Tool (the REST body's members)
//	Bedrock Converse          aws-sdk-go-v2 bedrockruntime: the body is read into bedrockruntime.ConverseInput
//	                          and written by the SDK's own serializer (Converse against a capturing HTTP client)
//
// The members a format has beyond the SDK's types are listed per format
// (extensions): reasoning_content (DeepSeek, Kimi) and the tool message's
// name (Mistral). They are checked for shape and removed before the
// comparison. The module is separate so that the SDKs stay out of the
// service's go.mod, as helm/chartest keeps Helm out.
package wiresdk
