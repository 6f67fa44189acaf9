package main

import (
	"log/slog"
	"net/http"

	"github.com/agentrun/agentrun/approval/settings"
	"github.com/agentrun/agentrun/internal/payloadcodec"
)

// codecHandler is the codec endpoint when AGENTRUN_CODEC_TOKEN is set, nil
// otherwise. The approval server serves it at /codec/ on its main listener:
// the Web UI and `temporal --codec-endpoint` are given http(s)://HOST/codec
// and append /encode or /decode.
func codecHandler(cfg settings.Program, logger *slog.Logger) http.Handler {
	if !cfg.Codec.Enabled() {
		return nil
	}
	return payloadcodec.NewHandler(cfg.Temporal.Codec, cfg.Codec, cfg.Temporal.Namespace, logger)
}
