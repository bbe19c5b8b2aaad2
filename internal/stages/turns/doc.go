// Package turns holds the hygiene rules that shape turns and their text:
// provenance, replay normalisation, blank blocks, signatures and reasoning,
// usage, replay markers and turn validation. Each rule is one file exporting
// one stage.Stage constructor; package stages lists them in spec §4 order:
//
//	InterSessionMarker         inter_session_marker         §3.1  (step 1)
//	AssistantReplay            assistant_replay             §3.2, §3.16 (step 2)
//	ThoughtSignatures          thought_signatures           §3.9  (step 3, image pass)
//	BlankBlocks                blank_blocks                 §3.3 blank text, placeholders, video (step 3)
//	ReplayInvalidSignatures    replay_invalid_signatures    §3.4.1 (step 4)
//	CompactionStaleSignatures  compaction_stale_signatures  §3.4.2 (step 5)
//	InvalidSignatures          invalid_signatures           §3.4.3 (step 6)
//	InvalidSignaturesAgain     invalid_signatures_again     §3.4.3 again, after pairing (fixed point)
//	DropReasoningFromHistory   drop_reasoning_from_history  §3.8.4 (step 7)
//	DropThinkingBlocks         drop_thinking_blocks         §3.8.1 (step 8)
//	Usage                      usage                        §3.14 (step 14)
//	GoogleBootstrap            google_bootstrap             §3.11 (step 15; covers step 18)
//	ModelSnapshot              model_snapshot               §3.13 write (step 17)
//	GeminiTurns                gemini_turns                 §3.12.1 (turn validation)
//	AnthropicTurns             anthropic_turns              §3.12.2 (turn validation)
//	ProviderTurns              provider_turns               beyond OpenClaw: last rule of the chain
//
// Choices where the spec leaves room (each rule's doc comment has the detail):
//   - transcript-only assistants are those with provider "openclaw" and model
//     "delivery-mirror" or "gateway-injected", OpenClaw's own predicate; the
//     newer openclawDeliveryMirror marker is not used, its shape being
//     undocumented. The display sanitiser of assistant text is unspecified,
//     so text is compared trimmed and never rewritten;
//   - "zero usage" means no non-zero token count (a missing usage included);
//   - the Gemini and Anthropic merges turn a non-blank string content into a
//     text block instead of dropping it (the spec's port note);
//   - prefix-binding Claude models are merged like the others;
//   - GoogleBootstrap runs once, at step 15, for the Google family (which
//     also persists the google-turn-ordering-bootstrap entry once) and for
//     policies with ApplyGoogleTurnOrdering;
//   - no prior model snapshot means the model did not change; a new snapshot
//     is stamped with now_ms, else the newest message timestamp;
//   - stamped times are now_ms, else the owning message's timestamp, and are
//     left out when neither exists (no clock is read);
//   - ProviderTurns enforces, for strict targets, user-first turns,
//     alternation, non-blank text and non-empty contents; for every target,
//     a history with turns but no user turn gets the "(session bootstrap)"
//     turn in front (one behaviour, issue 29);
//   - a text block without a string text counts as blank everywhere, and the
//     inter-session marker skips blank text blocks (the next rule removes
//     them);
//   - with Gemini thought-signature options, a "msg_" value is removed too
//     (V28), although it passes the base64url test;
//   - §3.2's trailing trim is repeated by BlankBlocks and ProviderTurns when
//     their drops or fills leave a failed turn at the end;
//   - merges keep the chain idempotent: a merged user keeps a provenance only
//     when all its parts share it; a merged assistant takes the timestamp
//     that goes with the usage it takes, an empty later part overwrites
//     nothing, and thought-signature cleanup applies when an error part
//     became part of a non-error turn;
//   - a compaction-stale assistant (its usage is zeroed by §3.14) is never a
//     "zero-usage" failed turn for §3.2.
//
// Every rule is a pure function of the transcript and its environment,
// idempotent, and linear in the history's length; messages it does not need
// to touch keep their bytes.
//
// The usage rule reads a usage as the runtimes write it with the plain
// usage reader of package jsontape, which the decode shares to record of
// each message whether its usage is whole already.
//
// May import: internal/policy, internal/stages/stage, internal/transcript,
// internal/transcript/jsontape.
package turns
