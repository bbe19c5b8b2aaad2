// Package media holds the hygiene rules about images, media references and
// context size:
//
//   - Images ("images"), spec §3.3 steps 1-6: every image block of user,
//     toolResult and assistant array content is canonicalised, checked and,
//     when too large, resized through the libvips image processor
//     (internal/images), or replaced by the spec's omission text. Provider
//     limits beyond OpenClaw (Anthropic family): a cap on images per request
//     (older ones become the stale-image marker) and a smaller side limit
//     when a request carries many images.
//   - Pruning ("pruning"), spec §3.18: cache-TTL context pruning of old tool
//     results (soft trim, then hard clear), stateless: the runner keeps the
//     TTL clock and reads Report.Pruning.Ran.
//   - StaleMedia ("stale_media"), spec §3.19: images and media references
//     older than the last three completed turns become exact markers.
//   - Documents ("documents"), beyond OpenClaw: documents and images by URL,
//     file id or S3 location that the target's contract has no place for,
//     or that are over its document limits, become texts that name them;
//     a document is never decoded, nor handed to the image processor.
//   - RequestSize ("request_size"), beyond OpenClaw: over the target's
//     request-size cap the oldest images and documents become placeholders.
//   - ContextFit ("context_fit"), issue 30: the target model's context
//     window with the output reserved, by the target's token count: old
//     tool results trimmed, then the oldest turns dropped at safe
//     boundaries with one placeholder, or refused or reported by the
//     job's context_fit.
//
// Choices the spec leaves open, made as a user of the target provider would
// want:
//
//   - images: an image block without a string mimeType is processed too (the
//     sniffed type is written), since a provider rejects an image without a
//     media type. The many-images count is taken after the per-request cap
//     and before processing. Report.Images counts resized (libvips made the
//     data), omitted, stale, and the base64 bytes of every image block seen
//     (bytes_in) and of the image data left (bytes_out); the stage's own
//     report also counts canonicalized (data only re-encoded) and mime_fixed.
//     A payload repeated in several blocks of one job is processed once.
//   - pruning: the TTL gate stays shut when the job carries no clock
//     (no now_ms), since the worker never reads its own. String content
//     of a user, assistant or toolResult message counts as weighted text,
//     and a toolResult's string content is one soft-trim part. The
//     thinkingSignature of a redacted_thinking block counts like that of a
//     thinking block. A soft-trim cut that splits a surrogate pair leaves
//     U+FFFD for the half (one code unit, as the lone surrogate would be),
//     because providers reject lone surrogates. A result that already is a
//     soft trim's output for the same head and tail sizes is not trimmed
//     again, so a second run changes nothing whatever the sizes. The report
//     counts final states: soft_trimmed for results left trimmed,
//     hard_cleared for results cleared.
//   - stale_media: JavaScript's \s and ASCII-only case folding are spelled
//     out in the patterns, so RE2 matches exactly what OpenClaw's patterns
//     match. Images it replaces also count in Report.Images.Stale.
//
// May import: internal/contract, internal/deadletter, internal/images,
// internal/policy, internal/settings, internal/stages/stage,
// internal/transcript.
package media
