package pairing

// smallFrame is the number of calls up to which a frame is searched by a
// plain scan; larger frames get a map, so a turn with thousands of calls
// stays linear.
const smallFrame = 8

// frameIndex finds a frame's occurrences by id during the in-frame claim.
// Claims go to the earliest unclaimed occurrence of an id (FIFO), so the
// claimed occurrences of an id are always a prefix of its list.
type frameIndex struct {
	occ0, occ1 int32
	groups     map[string]*idGroup // nil for small frames
}

// idGroup holds one id's occurrences of a large frame, in call order.
type idGroup struct {
	occs  []int32
	claim int // occs[:claim] hold a result
	syn   int // occs[:syn] hold a real result
}

// reset points the index at the occurrences occ0..occ1 of one frame.
func (x *frameIndex) reset(occs []occurrence, occ0, occ1 int32) {
	x.occ0, x.occ1, x.groups = occ0, occ1, nil
	if occ1-occ0 <= smallFrame {
		return
	}
	x.groups = make(map[string]*idGroup, occ1-occ0)
	for o := occ0; o < occ1; o++ {
		g := x.groups[occs[o].key]
		if g == nil {
			g = &idGroup{}
			x.groups[occs[o].key] = g
		}
		g.occs = append(g.occs, o)
	}
}

// claim returns the earliest occurrence of key without a result, or -1.
func (x *frameIndex) claim(key string, occs []occurrence) int32 {
	if x.groups == nil {
		for o := x.occ0; o < x.occ1; o++ {
			if occs[o].result < 0 && occs[o].key == key {
				return o
			}
		}
		return -1
	}
	g := x.groups[key]
	if g == nil || g.claim == len(g.occs) {
		return -1
	}
	g.claim++
	return g.occs[g.claim-1]
}

// has reports whether the frame has an occurrence of key.
func (x *frameIndex) has(key string, occs []occurrence) bool {
	if x.groups == nil {
		for o := x.occ0; o < x.occ1; o++ {
			if occs[o].key == key {
				return true
			}
		}
		return false
	}
	return x.groups[key] != nil
}

// syntheticHolder returns the earliest occurrence of key that holds a
// synthetic result, or -1.
func (x *frameIndex) syntheticHolder(key string, occs []occurrence, results []resultRef) int32 {
	if x.groups == nil {
		for o := x.occ0; o < x.occ1; o++ {
			if occs[o].key == key && occs[o].result >= 0 && results[occs[o].result].synthetic {
				return o
			}
		}
		return -1
	}
	g := x.groups[key]
	if g == nil {
		return -1
	}
	// A claimed occurrence that holds a real result never goes back to a
	// synthetic one, so the cursor only moves forward.
	for ; g.syn < g.claim; g.syn++ {
		o := g.occs[g.syn]
		if results[occs[o].result].synthetic {
			return o
		}
	}
	return -1
}

// adoptedHolder returns the earliest occurrence of key whose call id is
// rawID as written and whose real result is an id-less one that adopted
// it (legacy adoption), or -1. Only a result that matches exactly asks, and
// such a duplicate is rare, so the scan over the id's claimed occurrences
// stays cheap.
func (x *frameIndex) adoptedHolder(key, rawID string, occs []occurrence, results []resultRef) int32 {
	holds := func(o int32) bool {
		oc := &occs[o]
		return oc.key == key && oc.rawID == rawID && oc.result >= 0 && results[oc.result].adopt && !results[oc.result].synthetic
	}
	if x.groups == nil {
		for o := x.occ0; o < x.occ1; o++ {
			if holds(o) {
				return o
			}
		}
		return -1
	}
	if g := x.groups[key]; g != nil {
		for _, o := range g.occs[:g.claim] {
			if holds(o) {
				return o
			}
		}
	}
	return -1
}

// pool is unresolved[id] of spec §3.7 step 3: the occurrences of one id, in
// this and earlier frames, that have no result (none) or only a synthetic
// one (syn). Entries that got a result since are dropped lazily when the
// list is searched, so every entry is added once and removed at most once.
// A pool seeded by repairChunked counts the calls earlier segments left
// pending in nNone and nSyn without listing them.
type pool struct {
	none, syn   []int32
	nNone, nSyn int // the live entries of each list
}

// poolFor returns the pool of key, creating it.
func poolFor(pools map[string]*pool, key string) *pool {
	p := pools[key]
	if p == nil {
		p = &pool{}
		pools[key] = p
	}
	return p
}

func (p *pool) addNone(o int32)      { p.none = append(p.none, o); p.nNone++ }
func (p *pool) addSynthetic(o int32) { p.syn = append(p.syn, o); p.nSyn++ }

// earlierCall is what take returns when its single candidate is a call of
// an earlier segment (a pool seeded by repairChunked), which this run
// cannot hold.
const earlierCall int32 = -2

// take returns the single candidate occurrence for a displaced result and
// updates the pool as if the result were now held there, or returns -1 when
// there are zero or several candidates. A real result may take an
// occurrence with no result or a synthetic one; a synthetic result only one
// with no result.
func (p *pool) take(synthetic bool, occs []occurrence, results []resultRef) int32 {
	if synthetic {
		if p.nNone != 1 {
			return -1
		}
		o := p.liveNone(occs)
		if o < 0 {
			return earlierCall
		}
		p.nNone--
		p.addSynthetic(o)
		return o
	}
	if p.nNone+p.nSyn != 1 {
		return -1
	}
	var o int32
	if p.nNone == 1 {
		o = p.liveNone(occs)
	} else {
		o = p.liveSynthetic(occs, results)
	}
	if o < 0 {
		return earlierCall
	}
	if p.nNone == 1 {
		p.nNone--
	} else {
		p.nSyn--
	}
	return o
}

// liveNone compacts the none list and returns its one live entry.
func (p *pool) liveNone(occs []occurrence) int32 {
	found, k := int32(-1), 0
	for _, o := range p.none {
		if occs[o].result < 0 {
			p.none[k] = o
			k++
			found = o
		}
	}
	p.none = p.none[:k]
	return found
}

// liveSynthetic compacts the syn list and returns its one live entry.
func (p *pool) liveSynthetic(occs []occurrence, results []resultRef) int32 {
	found, k := int32(-1), 0
	for _, o := range p.syn {
		if r := occs[o].result; r >= 0 && results[r].synthetic {
			p.syn[k] = o
			k++
			found = o
		}
	}
	p.syn = p.syn[:k]
	return found
}
