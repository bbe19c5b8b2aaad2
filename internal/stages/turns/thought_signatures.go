package turns

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// ThoughtSignatures is spec §3.9 (stripThoughtSignatures). It runs inside
// the image pass (§4 step 3) on the blocks of every assistant that is not an
// error turn, unless the policy preserves signatures. Without options (every
// policy but the Gemini rows) it deletes a thought_signature that is a string
// starting with "msg_" (a Claude message id, not a Gemini signature). With
// AllowBase64Only it deletes a thought_signature that is not strict base64,
// and a present non-string one; IncludeCamelCase applies the same test to
// thoughtSignature. Choice: with options a "msg_" value is deleted as well,
// although "msg_abc" passes §3.9's base64url test (its 7 characters decode
// and re-encode exactly); V28 wants it gone, and a Claude message id is
// never a Gemini signature.
func ThoughtSignatures() stage.Stage {
	const name = "thought_signatures"
	return stage.Stage{Name: name, On: thoughtSignaturesOn, Needs: transcript.FactAssistant, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !thoughtSignaturesOn(env) {
			return nil
		}
		opts := env.Policy.SanitizeThoughtSignatures
		n := 0
		for _, c := range stage.ChunkResults(env, len(t.Messages), func(lo, hi int) int {
			stripped := 0
			for _, m := range t.Messages[lo:hi] {
				if m.Role() != transcript.RoleAssistant || m.StopReason() == transcript.StopError {
					continue
				}
				blocks, _ := m.Blocks()
				for _, b := range blocks {
					stripped += stripThoughtSignature(b, opts)
				}
			}
			return stripped
		}) {
			n += c
		}
		env.Report.Add(name, "stripped", n)
		return nil
	}}
}

// stripThoughtSignature applies §3.9 to one block and returns how many
// members it deleted.
func stripThoughtSignature(b *transcript.Block, opts *policy.ThoughtSignatureOptions) int {
	if opts == nil {
		if s, ok := b.String("thought_signature"); ok && strings.HasPrefix(s, "msg_") && b.Delete("thought_signature") {
			return 1
		}
		return 0
	}
	n := 0
	keys := []string{"thought_signature"}
	if opts.IncludeCamelCase {
		keys = append(keys, "thoughtSignature")
	}
	for _, k := range keys {
		if !b.Has(k) {
			continue
		}
		s, isString := b.String(k)
		msgID := isString && strings.HasPrefix(s, "msg_")
		if opts.AllowBase64Only {
			if isString && !msgID && isStrictBase64(s) {
				continue
			}
		} else if !msgID {
			continue
		}
		if b.Delete(k) {
			n++
		}
	}
	return n
}

// isStrictBase64 is §3.9's test: without white space, only base64 or
// base64url characters; decoded as base64url when '-' or '_' appears, else
// as standard base64; the decoding is not empty and re-encodes to the input
// (trailing '=' aside).
func isStrictBase64(s string) bool {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' {
			return -1
		}
		return r
	}, s)
	url := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '=':
		case c == '-' || c == '_':
			url = true
		default:
			return false
		}
	}
	core := strings.TrimRight(s, "=")
	enc := base64.RawStdEncoding.Strict()
	if url {
		enc = base64.RawURLEncoding.Strict()
	}
	decoded, err := enc.DecodeString(core)
	if err != nil || len(decoded) == 0 {
		return false
	}
	return enc.EncodeToString(decoded) == core
}

// thoughtSignaturesOn is the guard of the §3.9 strip: the policy does not
// preserve signatures.
func thoughtSignaturesOn(env *stage.Env) bool { return !env.Policy.PreserveSignatures }
