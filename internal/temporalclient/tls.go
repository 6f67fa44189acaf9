package temporalclient

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"go.temporal.io/sdk/contrib/envconfig"
)

// checkTLS loads what envconfig would load, so that a bad certificate, key or
// CA stops start-up naming its variable rather than failing every dial with
// an error about "TLS config".
func checkTLS(t *envconfig.ClientConfigTLS, src sources) error {
	if t == nil || t.Disabled {
		return nil
	}
	cert := src.name("TEMPORAL_TLS_CLIENT_CERT_PATH", "tls.client_cert_path")
	key := src.name("TEMPORAL_TLS_CLIENT_KEY_PATH", "tls.client_key_path")
	if len(t.ClientCertData) > 0 || len(t.ClientKeyData) > 0 {
		cert, key = "TEMPORAL_TLS_CLIENT_CERT_DATA", "TEMPORAL_TLS_CLIENT_KEY_DATA"
	}
	hasCert := t.ClientCertPath != "" || len(t.ClientCertData) > 0
	hasKey := t.ClientKeyPath != "" || len(t.ClientKeyData) > 0
	switch {
	case hasCert && !hasKey:
		return fmt.Errorf("%s: set, but %s is not: mTLS needs both", cert, key)
	case hasKey && !hasCert:
		return fmt.Errorf("%s: set, but %s is not: mTLS needs both", key, cert)
	case hasCert:
		if _, err := loadKeyPair(t); err != nil {
			return fmt.Errorf("%s, %s: %w", cert, key, err)
		}
	}
	if t.ServerCACertPath == "" && len(t.ServerCACertData) == 0 {
		return nil
	}
	ca := src.name("TEMPORAL_TLS_SERVER_CA_CERT_PATH", "tls.server_ca_cert_path")
	pem := t.ServerCACertData
	if len(pem) == 0 {
		var err error
		if pem, err = os.ReadFile(t.ServerCACertPath); err != nil {
			return fmt.Errorf("%s: %w", ca, err)
		}
	} else {
		ca = "TEMPORAL_TLS_SERVER_CA_CERT_DATA"
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s: no PEM certificate in it", ca)
	}
	return nil
}

func loadKeyPair(t *envconfig.ClientConfigTLS) (tls.Certificate, error) {
	if len(t.ClientCertData) > 0 {
		return tls.X509KeyPair(t.ClientCertData, t.ClientKeyData)
	}
	return tls.LoadX509KeyPair(t.ClientCertPath, t.ClientKeyPath)
}
