// Package auth is who a caller of the approval server is: the HMAC
// signature of the /v1 API, the page form's CSRF token, and the user a
// trusted login proxy names in a header. It decides nothing about runs; the
// approval server's route table says which route needs which of these.
package auth
