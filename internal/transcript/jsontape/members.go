package jsontape

// unlimitedDepth is used when re-scanning text that was already validated
// against the configured depth limit.
const unlimitedDepth = 1 << 30

// EachMember validates raw as one JSON object nested at most maxDepth
// deep, with only space after it, and calls f with each member's key
// (decoded, and interned when common: see internKey) and raw value, a
// sub-slice of raw, in order.
func EachMember(raw []byte, maxDepth int, f func(key string, value []byte)) error {
	s := scanner{data: raw, maxDepth: maxDepth}
	return s.eachMember(f)
}

// eachMember is EachMember's pass over s.data.
func (s *scanner) eachMember(f func(key string, value []byte)) error {
	raw := s.data
	i := s.skipSpace(0)
	if i >= len(raw) || raw[i] != '{' {
		return s.errAt(i, "expected a JSON object")
	}
	i = s.skipSpace(i + 1)
	if i < len(raw) && raw[i] == '}' {
		return s.trailing(i + 1)
	}
	for {
		key, vstart, err := s.memberKey(i)
		if err != nil {
			return err
		}
		vend, err := s.value(vstart, 1)
		if err != nil {
			return err
		}
		f(key, raw[vstart:vend:vend])
		var closed bool
		if i, closed, err = s.nextMember(vend); err != nil {
			return err
		} else if closed {
			return s.trailing(i)
		}
	}
}

// trailing accepts only white space from i to the end.
func (s *scanner) trailing(i int) error {
	if end := s.skipSpace(i); end != len(s.data) {
		return s.errAt(end, "invalid character %q after the object", s.data[end])
	}
	return nil
}

// ParseArray splits a JSON array into its elements. The elements alias raw.
func ParseArray(raw []byte) ([][]byte, error) {
	s := scanner{data: raw, maxDepth: unlimitedDepth}
	i := s.skipSpace(0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, s.errAt(i, "expected a JSON array")
	}
	elems, _, err := s.splitArray(i, 1)
	return elems, err
}

// splitArray validates the array at i (nesting depth depth) and returns its
// elements and the index past it.
func (s *scanner) splitArray(i, depth int) ([][]byte, int, error) {
	if depth > s.maxDepth {
		return nil, i, &depthError{offset: i, limit: s.maxDepth}
	}
	raw := s.data
	elems := make([][]byte, 0, 4) // content arrays are short; long arrays grow as usual
	i = s.skipSpace(i + 1)
	if i < len(raw) && raw[i] == ']' {
		return elems, i + 1, nil
	}
	for {
		end, err := s.value(i, depth)
		if err != nil {
			return nil, end, err
		}
		elems = append(elems, raw[i:end:end])
		var closed bool
		if i, closed, err = s.nextElement(end); err != nil || closed {
			return elems, i, err
		}
	}
}
