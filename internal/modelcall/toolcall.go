package modelcall

import (
	"bytes"
	"encoding/json"
)

// Arguments is a call's arguments, or an empty JSON object for none.
func Arguments(raw json.RawMessage) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("{}")
	}
	return raw
}
