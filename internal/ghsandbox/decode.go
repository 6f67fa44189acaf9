package ghsandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DecodeStrict decodes exactly one JSON value from raw into v. An unknown
// field or anything after the value is an error, so that a typo in a fault,
// a comment or a hand-edited state file is refused rather than half
// understood.
func DecodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// ReadStrict is DecodeStrict of everything r holds.
func ReadStrict(r io.Reader, v any) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	return DecodeStrict(raw, v)
}
