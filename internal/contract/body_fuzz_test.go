package contract

import "testing"

// FuzzCheckBody: any bytes, in every format, give a result or an error,
// never a panic, and the same result twice.
func FuzzCheckBody(f *testing.F) {
	f.Add([]byte(`{"system":[{"type":"text","text":" "}],"messages":[` + anthUser + `,` + anthAnswer + `],"tools":[{"name":"a.b"}]}`))
	f.Add([]byte(`{"input":[` + respUser + `,{"type":"function_call","name":"x/y"}],"tools":[{"type":"function","name":7}]}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":null},{"text":3}]}],"tools":[{"functionDeclarations":{}}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":[{"text":null}],"prefix":"yes"}]}`))
	formats := []BodyFormat{BodyAnthropic, BodyBedrock, BodyChat, BodyResponses, BodyGemini, BodyMistral}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, bf := range formats {
			r, err := CheckBody(bf, body, "claude-opus-4-6")
			again, err2 := CheckBody(bf, body, "claude-opus-4-6")
			if (err == nil) != (err2 == nil) || r.Summary() != again.Summary() {
				t.Fatalf("%s: not deterministic", bf)
			}
		}
	})
}
