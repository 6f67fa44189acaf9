package main

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/agentrun/agentrun/internal/payloadcodec"
)

// codecPrefix is where the remote codec lives on the approval listener: the
// Web UI and `temporal --codec-endpoint` are given http(s)://HOST/codec and
// append /encode or /decode.
const codecPrefix = "/codec/"

// withCodec serves the codec endpoint beside the approval server's own
// handler when AGENTRUN_CODEC_TOKEN is set. A prefix test rather than a
// ServeMux: a mux would clean and redirect the approval server's escaped
// path IDs.
func withCodec(cfg config, approval http.Handler, logger *slog.Logger) http.Handler {
	if !cfg.codec.Enabled() {
		return approval
	}
	codec := payloadcodec.NewHandler(cfg.temporal.Codec, cfg.codec, cfg.temporal.Namespace, logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, codecPrefix) {
			codec.ServeHTTP(w, r)
			return
		}
		approval.ServeHTTP(w, r)
	})
}
