// Package approvalsrv is the approval server: the signed decision API, the
// GitHub webhook, the read API and the web page that turn people's decisions
// into signals to AgentRun workflows. The approval main serves it.
//
// Endpoints:
//
//	POST /v1/runs                                      signed, Idempotency-Key; {repo, pullNumber, goal, agent, approvers, userId, checkRun}
//	GET  /v1/runs?status=&agent=&pageSize=&pageToken=  signed; a page of runs, newest first
//	POST /v1/runs/{runId}/actions/{actionId}/decision  signed; {decision, approver, reason, requestId}
//	POST /v1/runs/{runId}/steps/{stepId}/resolve       signed; {decision, by, externalResourceId, requestId}
//	POST /github/webhook                               X-Hub-Signature-256; issue_comment commands, check_run buttons
//	GET  /v1/runs/{runId}                              signed; the run query (RunSnapshot)
//	GET  /v1/runs/{runId}/events                       signed; Server-Sent Events; id = event sequence
//	GET  /v1/approvals                                 signed; every waiting action across runs
//	GET  /  and  GET /runs/{runId}                     the pages; /runs/{runId}/panel and /events are their live part
//	POST /runs/{runId}/actions/{actionId}/decision     the page's form (CSRF token, same origin)
//	GET  /healthz, GET /static/                        open
//	/codec/                                            bearer token; the payload codec, when configured
//
// Every route is in one table (routes.go) with the credential it needs, and
// that credential's guard is applied from the table. A signed request
// carries X-Agentrun-Timestamp (unix seconds, within five minutes) and
// X-Agentrun-Signature: sha256=hex(HMAC-SHA256(APPROVAL_SECRET, timestamp +
// "." + method + "." + target + "." + body)), where target is the escaped
// path plus "?" and the raw query when there is one (api.SignedTarget), and
// "\nIdempotency-Key: " and the key when the request has one; a GET signs an
// empty body. The pages need the user a trusted login proxy
// names in APPROVAL_IDENTITY_HEADER (package auth).
//
// Who may decide: when the run names approvers, only they (compared as GitHub
// compares logins, without case). When it names none, the signed API and the
// page accept the person they authenticated (the holder of the secret, the
// user the login proxy names in APPROVAL_IDENTITY_HEADER), and a GitHub
// comment needs write permission on the repository.
//
// Every decision is checked through the run query before the signal is sent,
// and the workflow checks again. A refusal is logged and kept, in memory, for
// the run's page. A refusal of a decision the channel authenticated, on an
// action the run has (403, 409, a command posted on another pull request), is
// also sent to the run as a refusal signal, at most 20 per run per process,
// so that the run's page still shows it after this server restarts; a
// request that fails authentication or parsing never writes into a run. A
// repeated requestId (same run, action, channel and approver) or a
// redelivered GitHub comment answers as the first did and sends nothing new;
// the same requestId asking for another decision or reason is refused (409).
//
// Path IDs are checked (pathid.go) before anything else: 400. A GitHub
// comment counts only on a line of its own, outside code, quotes and HTML
// comments, and finds its run by the AgentRunActionIds search attribute in
// one visibility query. All event streams of a run share one poller; streams
// are capped in total and per user or address (429). The inbox is listed at
// most once a second.
package approvalsrv
