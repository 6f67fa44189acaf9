package approvalsrv

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Headers of the signed API.
const (
	HeaderTimestamp = "X-Agentrun-Timestamp"
	HeaderSignature = "X-Agentrun-Signature"
)

// SignatureMaxSkew is how far the timestamp of a signed request may be from now.
const SignatureMaxSkew = 5 * time.Minute

const signaturePrefix = "sha256="

// Reasons a signed request is refused. They are safe to show to the caller.
var (
	errMissingTimestamp = errors.New("missing " + HeaderTimestamp)
	errBadTimestamp     = errors.New(HeaderTimestamp + " is not unix seconds")
	errStaleTimestamp   = errors.New(HeaderTimestamp + " is more than 5 minutes from now")
	errMissingSignature = errors.New("missing " + HeaderSignature)
	errBadSignatureForm = errors.New(HeaderSignature + " must be sha256=<hex>")
	errBadSignature     = errors.New("signature does not match")
)

// Sign returns the X-Agentrun-Signature value of a request: HMAC-SHA256
// over timestamp + "." + method + "." + escapedPath + "." + body, where
// escapedPath is the request URL's EscapedPath() and a GET signs an empty
// body. Binding the method and path means a captured signature cannot be
// replayed to another run, action or endpoint. Callers of the API (and the
// tests) use it.
func Sign(secret []byte, timestamp, method, escapedPath string, body []byte) string {
	return signaturePrefix + hex.EncodeToString(mac(secret, timestamp, method, escapedPath, body))
}

func mac(secret []byte, timestamp, method, escapedPath string, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(timestamp + "." + method + "." + escapedPath + "."))
	h.Write(body)
	return h.Sum(nil)
}

// verifySignature checks the timestamp window first so that a replayed
// request past its window is refused whatever its signature.
func verifySignature(secret []byte, r *http.Request, body []byte, now time.Time) error {
	timestamp := r.Header.Get(HeaderTimestamp)
	if err := checkTimestamp(timestamp, now); err != nil {
		return err
	}
	signature := r.Header.Get(HeaderSignature)
	if signature == "" {
		return errMissingSignature
	}
	hexMAC, ok := strings.CutPrefix(signature, signaturePrefix)
	if !ok {
		return errBadSignatureForm
	}
	got, err := hex.DecodeString(hexMAC)
	if err != nil || len(got) != sha256.Size {
		return errBadSignatureForm
	}
	if !hmac.Equal(got, mac(secret, timestamp, r.Method, r.URL.EscapedPath(), body)) {
		return errBadSignature
	}
	return nil
}

func checkTimestamp(timestamp string, now time.Time) error {
	if timestamp == "" {
		return errMissingTimestamp
	}
	seconds, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errBadTimestamp
	}
	skew := now.Sub(time.Unix(seconds, 0))
	if skew > SignatureMaxSkew || skew < -SignatureMaxSkew {
		return fmt.Errorf("%w (skew %s)", errStaleTimestamp, skew.Round(time.Second))
	}
	return nil
}
