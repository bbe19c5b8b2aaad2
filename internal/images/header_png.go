package images

import (
	"encoding/binary"
	"hash/crc32"
)

// readPNG walks the PNG chunks, checking every CRC, up to IEND. It takes
// the dimensions from IHDR and the frame count from an APNG acTL chunk.
func readPNG(b []byte) (header, error) {
	h := header{format: formatPNG, frames: 1, bytesPerSample: 1}
	i := len(pngSignature)
	first, idat := true, false
	for {
		if i+8 > len(b) {
			return h, truncated(formatPNG, "file ends before the IEND chunk")
		}
		n := binary.BigEndian.Uint32(b[i:])
		if n > 1<<31-1 {
			return h, corrupt(formatPNG, "chunk at byte %d declares length %d", i, n)
		}
		typ := string(b[i+4 : i+8])
		end := i + 8 + int(n) + 4
		if end > len(b) {
			return h, truncated(formatPNG, "file ends inside the %q chunk", typ)
		}
		data := b[i+8 : i+8+int(n)]
		if crc32.ChecksumIEEE(b[i+4:i+8+int(n)]) != binary.BigEndian.Uint32(b[end-4:]) {
			return h, corrupt(formatPNG, "chunk %q has a bad CRC", typ)
		}
		if first != (typ == "IHDR") {
			return h, corrupt(formatPNG, "IHDR is not the first chunk")
		}
		switch typ {
		case "IHDR":
			if err := readIHDR(&h, data); err != nil {
				return h, err
			}
		case "acTL":
			if len(data) != 8 {
				return h, corrupt(formatPNG, "acTL chunk is %d bytes long", len(data))
			}
			h.frames = int(binary.BigEndian.Uint32(data))
		case "IDAT":
			idat = true
		case "IEND":
			if !idat {
				return h, corrupt(formatPNG, "no IDAT chunk before IEND")
			}
			return h, nil
		}
		first = false
		i = end
	}
}

// readIHDR fills h from an IHDR chunk body.
func readIHDR(h *header, d []byte) error {
	if len(d) != 13 {
		return corrupt(formatPNG, "IHDR chunk is %d bytes long", len(d))
	}
	w, ht := binary.BigEndian.Uint32(d), binary.BigEndian.Uint32(d[4:])
	if w > 1<<31-1 || ht > 1<<31-1 {
		return corrupt(formatPNG, "IHDR declares %dx%d", w, ht)
	}
	h.width, h.height = int(w), int(ht)
	if d[8] == 16 {
		h.bytesPerSample = 2
	}
	switch d[9] {
	case 0:
		h.bands = 1
	case 2:
		h.bands = 3
	case 3, 6:
		h.bands = 4 // a palette may carry transparency
	case 4:
		h.bands = 2
	default:
		return corrupt(formatPNG, "IHDR declares colour type %d", d[9])
	}
	return nil
}
