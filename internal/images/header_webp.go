package images

import "encoding/binary"

// readWebP walks the RIFF chunks of a WebP file. The dimensions come from
// VP8X (canvas), or else from the first VP8 or VP8L bitstream header; each
// ANMF chunk is one frame.
func readWebP(b []byte) (header, error) {
	h := header{format: formatWebP, bands: 4, bytesPerSample: 1}
	size := int64(binary.LittleEndian.Uint32(b[4:]))
	if size+8 > int64(len(b)) {
		return h, truncated(formatWebP, "RIFF declares %d bytes, the file has %d", size+8, len(b))
	}
	if size < 4 {
		return h, corrupt(formatWebP, "RIFF size %d is not valid", size)
	}
	b = b[:size+8]
	i := 12
	vp8x, image := false, false
	anmf := 0
	for i < len(b) {
		if i+8 > len(b) {
			return h, truncated(formatWebP, "file ends inside a chunk header")
		}
		typ := string(b[i : i+4])
		n := int(binary.LittleEndian.Uint32(b[i+4:]))
		if i+8+n > len(b) {
			return h, truncated(formatWebP, "file ends inside the %q chunk", typ)
		}
		d := b[i+8 : i+8+n]
		switch typ {
		case "VP8X":
			if len(d) < 10 || i != 12 {
				return h, corrupt(formatWebP, "VP8X chunk is not a valid first chunk")
			}
			h.width = 1 + int(uint32(d[4])|uint32(d[5])<<8|uint32(d[6])<<16)
			h.height = 1 + int(uint32(d[7])|uint32(d[8])<<8|uint32(d[9])<<16)
			vp8x = true
		case "ANMF":
			anmf++
			image = true
		case "VP8 ", "VP8L":
			if !image && !vp8x {
				w, ht, err := bitstreamSize(typ, d)
				if err != nil {
					return h, err
				}
				h.width, h.height = w, ht
			}
			image = true
		}
		i += 8 + n + n%2
	}
	if !image {
		return h, corrupt(formatWebP, "no image chunk in the file")
	}
	h.frames = max(anmf, 1)
	return h, nil
}

// bitstreamSize reads the dimensions of a VP8 or VP8L bitstream.
func bitstreamSize(typ string, d []byte) (int, int, error) {
	if typ == "VP8L" {
		if len(d) < 5 || d[0] != 0x2f {
			return 0, 0, corrupt(formatWebP, "VP8L bitstream has no valid signature")
		}
		v := binary.LittleEndian.Uint32(d[1:])
		return 1 + int(v&0x3fff), 1 + int((v>>14)&0x3fff), nil
	}
	if len(d) < 10 || d[3] != 0x9d || d[4] != 0x01 || d[5] != 0x2a {
		return 0, 0, corrupt(formatWebP, "VP8 bitstream has no valid key frame header")
	}
	return int(binary.LittleEndian.Uint16(d[6:]) & 0x3fff), int(binary.LittleEndian.Uint16(d[8:]) & 0x3fff), nil
}
