package transport

import "fmt"

// CheckSize returns an error wrapping ErrRecordTooLarge when r.Size() is over
// maxBytes, naming the record's key and both sizes; maxBytes <= 0 means no limit.
func CheckSize(r Record, maxBytes int) error {
	if maxBytes > 0 && r.Size() > maxBytes {
		return fmt.Errorf("%w: the record with key %q is %d bytes, the limit is %d", ErrRecordTooLarge, r.Key, r.Size(), maxBytes)
	}
	return nil
}
