package api

// The signed-request scheme is a wire rule: the approval server checks it on
// its /v1 API, and a run's callback is signed with it, so that a receiver
// checks a delivery as the server checks a request.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Headers of the signed API and of a callback delivery.
const (
	HeaderTimestamp = "X-Agentrun-Timestamp"
	HeaderSignature = "X-Agentrun-Signature"
)

// MaxSignatureSkew is how far the timestamp of a signed request may be from now.
const MaxSignatureSkew = 5 * time.Minute

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

// SignedTarget is the part of a request's URL that its signature covers:
// the escaped path as it goes on the wire and, when the URL has a query,
// "?" and the raw query exactly as sent (not reordered, not re-escaped). A
// bare "?" is no query. Covering the query means a captured read cannot be
// replayed with another lastEventId or filter.
func SignedTarget(u *url.URL) string {
	if u.RawQuery == "" {
		return u.EscapedPath()
	}
	return u.EscapedPath() + "?" + u.RawQuery
}

// Sign returns the X-Agentrun-Signature value of a request: HMAC-SHA256
// over timestamp + "." + method + "." + target + "." + body, where target is
// SignedTarget of the request's URL (followed, when the request carries an
// Idempotency-Key, by "\nIdempotency-Key: " and the key) and a GET signs an
// empty body. Binding the method, path and query means a captured signature
// cannot be replayed to another run, action, endpoint or query; binding the
// key, that a captured start cannot be replayed under a fresh key to start
// another run. A target is escaped, so it never holds the newline.
func Sign(secret []byte, timestamp, method, target string, body []byte) string {
	return signaturePrefix + hex.EncodeToString(mac(secret, timestamp, method, target, body))
}

// SignRequest sets the two signature headers of req, as made at at; body is
// what req sends (nil for a GET). An Idempotency-Key must be set on req
// before. Every caller of the signed API in this repository signs through it.
func SignRequest(req *http.Request, secret, body []byte, at time.Time) {
	stamp := strconv.FormatInt(at.Unix(), 10)
	req.Header.Set(HeaderTimestamp, stamp)
	req.Header.Set(HeaderSignature, Sign(secret, stamp, req.Method, signedTarget(req), body))
}

// signedTarget is what Sign calls target for r.
func signedTarget(r *http.Request) string {
	target := SignedTarget(r.URL)
	if keys := r.Header.Values(HeaderIdempotencyKey); len(keys) > 0 {
		// Several values are signed as one; the start handler refuses them.
		target += "\n" + HeaderIdempotencyKey + ": " + strings.Join(keys, ", ")
	}
	return target
}

func mac(secret []byte, timestamp, method, target string, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(timestamp + "." + method + "." + target + "."))
	h.Write(body)
	return h.Sum(nil)
}

// VerifySignature checks the timestamp window first so that a replayed
// request past its window is refused whatever its signature. Its errors are
// safe to show to the caller.
func VerifySignature(secret []byte, r *http.Request, body []byte, now time.Time) error {
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
	if !hmac.Equal(got, mac(secret, timestamp, r.Method, signedTarget(r), body)) {
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
	if skew > MaxSignatureSkew || skew < -MaxSignatureSkew {
		return fmt.Errorf("%w (skew %s)", errStaleTimestamp, skew.Round(time.Second))
	}
	return nil
}
