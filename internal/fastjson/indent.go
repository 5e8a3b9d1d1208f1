package fastjson

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// MarshalIndent is encoding/json's MarshalIndent, by its v1 rules on the
// v2 engine (github.com/go-json-experiment/json/v1): about twice as
// fast for the large documents swetouch writes (report.json's trials,
// emitted Jobs). The two write the same bytes but where a string is not
// UTF-8: encoding/json writes \ufffd for a bad byte, the v2 engine the
// character itself, so output holding that character is redone by
// encoding/json (TestMarshalIndentIsEncodingJSONs). Reference sends
// it all to encoding/json.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	if !Reference() {
		b, err := jsonv1.MarshalIndent(v, prefix, indent)
		if err == nil && !bytes.ContainsRune(b, utf8.RuneError) {
			return b, nil
		}
	}
	return json.MarshalIndent(v, prefix, indent)
}
