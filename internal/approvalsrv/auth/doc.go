// Package auth is who a caller of the approval server's pages is: the page
// form's CSRF token, and the user a trusted login proxy names in a header.
// The /v1 API's signature is a wire rule, in api (api.VerifySignature). It
// decides nothing about runs; the approval server's route table says which
// route needs which of these.
package auth
