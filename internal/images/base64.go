package images

import (
	"bytes"
	"encoding/base64"
	"errors"
)

// errEmpty and errInvalidBase64 are the two ways canonicalisation fails.
var (
	errEmpty         = errors.New("image payload is empty")
	errInvalidBase64 = errors.New("image payload is not valid base64")
)

// canonicalBase64 removes a data: URL prefix and every byte <= 0x20,
// accepts the standard or the URL-safe alphabet with optional padding, and
// returns the decoded bytes and their canonical standard padded encoding.
func canonicalBase64(in []byte) (canon, decoded []byte, err error) {
	if canon, decoded, ok := alreadyCanonical(in); ok {
		return canon, decoded, nil
	}
	body, err := stripDataURL(in)
	if err != nil {
		return nil, nil, err
	}
	clean := make([]byte, 0, len(body)+3)
	for _, c := range body {
		if c > 0x20 {
			clean = append(clean, c)
		}
	}
	if len(clean) == 0 {
		return nil, nil, errEmpty
	}
	pad := 0
	for pad < len(clean) && clean[len(clean)-1-pad] == '=' {
		pad++
	}
	if pad > 2 {
		return nil, nil, errInvalidBase64
	}
	data := clean[:len(clean)-pad]
	if err := toStandardAlphabet(data); err != nil {
		return nil, nil, err
	}
	switch {
	case len(data)%4 == 1:
		return nil, nil, errInvalidBase64
	case pad > 0 && (len(data)+pad)%4 != 0:
		return nil, nil, errInvalidBase64
	}
	for len(clean)%4 != 0 {
		clean = append(clean, '=')
	}
	decoded = make([]byte, base64.StdEncoding.DecodedLen(len(clean)))
	n, err := base64.StdEncoding.Strict().Decode(decoded, clean)
	canon = clean
	if err != nil {
		// Non-zero trailing bits are accepted; the canonical form is then
		// the re-encoding of the decoded bytes.
		n, err = base64.StdEncoding.Decode(decoded, clean)
		if err != nil {
			return nil, nil, errInvalidBase64
		}
		canon = nil
	}
	decoded = decoded[:n]
	if len(decoded) == 0 {
		return nil, nil, errEmpty
	}
	if canon == nil {
		canon = encodeStd(decoded)
	}
	return canon, decoded, nil
}

// alreadyCanonical decodes in without copying it when it is already
// standard padded base64 with zero trailing bits and nothing to strip, the
// common case. The decoder silently skips CR and LF, so the length check
// tells whether any were there.
func alreadyCanonical(in []byte) (canon, decoded []byte, ok bool) {
	if len(in) == 0 || len(in)%4 != 0 {
		return nil, nil, false
	}
	decoded = make([]byte, base64.StdEncoding.DecodedLen(len(in)))
	n, err := base64.StdEncoding.Strict().Decode(decoded, in)
	if err != nil || n == 0 || encodedLen(n) != len(in) {
		return nil, nil, false
	}
	return in, decoded[:n], true
}

// toStandardAlphabet checks that data holds one base64 alphabet only and
// rewrites the URL-safe one to the standard one in place.
func toStandardAlphabet(data []byte) error {
	std, url := false, false
	for i, c := range data {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '+' || c == '/':
			std = true
		case c == '-':
			url = true
			data[i] = '+'
		case c == '_':
			url = true
			data[i] = '/'
		default:
			return errInvalidBase64
		}
	}
	if std && url {
		return errInvalidBase64
	}
	return nil
}

// stripDataURL removes a leading "data:<mime>;base64," prefix (after
// leading whitespace). A data: URL that is not base64 is invalid.
func stripDataURL(in []byte) ([]byte, error) {
	s := bytes.TrimLeft(in, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	if len(s) < 5 || !bytes.EqualFold(s[:5], []byte("data:")) {
		return in, nil
	}
	comma := bytes.IndexByte(s, ',')
	if comma < 0 {
		return nil, errInvalidBase64
	}
	meta := s[5:comma]
	if len(meta) < 7 || !bytes.EqualFold(meta[len(meta)-7:], []byte(";base64")) {
		return nil, errInvalidBase64
	}
	return s[comma+1:], nil
}

// encodeStd returns the standard padded base64 of b.
func encodeStd(b []byte) []byte {
	out := make([]byte, base64.StdEncoding.EncodedLen(len(b)))
	base64.StdEncoding.Encode(out, b)
	return out
}

// encodedLen is the standard padded base64 length of n bytes.
func encodedLen(n int) int { return base64.StdEncoding.EncodedLen(n) }
