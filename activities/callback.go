package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// Callbacks is what a worker needs to deliver runs' results: the URLs it
// allows (AGENTRUN_CALLBACK_ALLOWED, the final word whatever the starter or
// the API checked) and the secret each receiver's key is derived from
// (AGENTRUN_CALLBACK_SECRET, see api.CallbackKey).
type Callbacks struct {
	Allowed api.CallbackAllowList
	Secret  []byte
	// Client overrides the HTTP client; nil means one that follows no
	// redirect, since a redirect could lead outside the allow-list.
	Client *http.Client
}

// maxReceiptBody is how much of a receiver's answer is read, so that the
// connection can be reused; nothing of it is kept.
const maxReceiptBody = 64 << 10

var noRedirects = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// DeliverResult makes one attempt to POST a run's result to its callback,
// signed as the signed API is (api.SignRequest) with the receiver's own
// key (api.CallbackKey), and carrying the run's
// Idempotency-Key. A transport error, a 5xx, 408 or 429 is retried by the
// workflow's policy; a refusal is not. A 409 means the receiver already
// holds a result under the key, which only this run's earlier attempt can
// have sent, so it counts as delivered.
func (a *Activities) DeliverResult(ctx context.Context, in api.CallbackDelivery) (api.CallbackReceipt, error) {
	cb := a.Callbacks
	if err := cb.Allowed.Check(in.URL); err != nil {
		return api.CallbackReceipt{}, refusedCallback("this worker refuses the URL: %s", err)
	}
	if len(cb.Secret) == 0 {
		return api.CallbackReceipt{}, refusedCallback("%s", errors.New("this worker has no AGENTRUN_CALLBACK_SECRET to sign the delivery with"))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.URL, bytes.NewReader(in.Body))
	if err != nil {
		return api.CallbackReceipt{}, refusedCallback("build the request: %s", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderIdempotencyKey, api.CallbackIdempotencyKey(in.RunID))
	key, err := api.CallbackKey(cb.Secret, in.URL)
	if err != nil {
		return api.CallbackReceipt{}, refusedCallback("%s", err)
	}
	api.SignRequest(req, key, in.Body, time.Now())
	client := cb.Client
	if client == nil {
		client = noRedirects
	}
	resp, err := client.Do(req)
	if err != nil {
		return api.CallbackReceipt{}, fmt.Errorf("post the result of %s: %w", in.RunID, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxReceiptBody))
	_ = resp.Body.Close()
	receipt := api.CallbackReceipt{StatusCode: resp.StatusCode, Attempt: int(activity.GetInfo(ctx).Attempt)}
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		return receipt, nil
	case code == http.StatusConflict:
		receipt.AlreadyHad = true
		return receipt, nil
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		return api.CallbackReceipt{}, fmt.Errorf("the receiver answered %d", code)
	case code >= 300 && code < 400:
		return api.CallbackReceipt{}, refusedCallback("%s", fmt.Errorf("the receiver answered %d; redirects are not followed", code))
	default:
		return api.CallbackReceipt{}, refusedCallback("%s", fmt.Errorf("the receiver refused the result with %d", code))
	}
}

func refusedCallback(format string, err error) error {
	msg := fmt.Sprintf(format, err)
	return temporal.NewNonRetryableApplicationError(msg, api.ErrTypeCallbackRefused, err)
}
