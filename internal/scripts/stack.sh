#!/usr/bin/env bash
# stack.sh up|down: the local stack behind `make up` and `make down`.
#
# up starts, each in the background with its log in .data/NAME.log and its
# PID in .data/NAME.pid: the Temporal dev server (tuned file DB, UI), the
# GitHub sandbox (always, unless AGENTRUN_GITHUB=real), the worker and the
# approval server (when it is built). It checks every port it needs before it
# starts anything. A service whose PID file names a live process of
# ours is left alone, so a second `up` changes nothing. Then the sandbox
# opens the demo pull request: its signed pull_request delivery reaches the
# approval server, whose AGENTRUN_AUTO_REVIEW lists acme/widgets, and that
# starts the demo run, which it follows until it waits for approval.
#
# down stops exactly the processes named by those PID files, and only if the
# PID still belongs to our binary (a PID can be reused after a reboot).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# AGENTRUN_BIN and AGENTRUN_DATA let a test run the stack from its own build
# in its own folder; people use the defaults.
BIN=${AGENTRUN_BIN:-$ROOT/bin}
DATA=${AGENTRUN_DATA:-$ROOT/.data}

TEMPORAL_PORT=${TEMPORAL_PORT:-7233}
TEMPORAL_UI_PORT=${TEMPORAL_UI_PORT:-8233}
SANDBOX_ADDR=${SANDBOX_ADDR:-127.0.0.1:9090}
APPROVAL_ADDR=${APPROVAL_ADDR:-127.0.0.1:8080}
DEMO_REPO=${DEMO_REPO:-acme/widgets}
DEMO_PR=${DEMO_PR:-1}
READY_TIMEOUT=${READY_TIMEOUT:-90}

export TEMPORAL_ADDRESS=127.0.0.1:$TEMPORAL_PORT
export TEMPORAL_NAMESPACE=default

# Services in start order; down stops them in reverse.
SERVICES=(temporal ghsandbox worker approval)

pidfile() { echo "$DATA/$1.pid"; }
logfile() { echo "$DATA/$1.log"; }

# running NAME: the PID file names a live process running our bin/NAME.
running() {
  local pf pid
  pf=$(pidfile "$1")
  [[ -f $pf ]] || return 1
  pid=$(<"$pf")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/cmdline ]] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" | head -n 1 | grep -qxF "$BIN/$1"
}

# launch NAME CMD...: start CMD in its own session (a Ctrl-C on the demo's
# --follow must not reach the services) and record its PID.
launch() {
  local name=$1
  shift
  setsid "$@" >"$(logfile "$name")" 2>&1 </dev/null &
  local pid=$! deadline=$((SECONDS + 10))
  echo "$pid" >"$(pidfile "$name")"
  # Until setsid (and env) exec the program, the PID runs the launcher, which
  # running() would take for a dead service: wait for the exec, or the exit.
  until running "$name" || [[ ! -e /proc/$pid ]] || ((SECONDS >= deadline)); do
    sleep 0.05
  done
  echo "started $name (pid $pid, log .data/$name.log)"
}

# wait_ready NAME CHECK...: poll CHECK until it succeeds; fail early, with the
# log's tail, if the process dies or READY_TIMEOUT passes.
wait_ready() {
  local name=$1 deadline=$((SECONDS + READY_TIMEOUT))
  shift
  until "$@" >/dev/null 2>&1; do
    if ! running "$name"; then
      echo "$name exited before it was ready; the end of .data/$name.log:" >&2
      tail -n 30 "$(logfile "$name")" >&2
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      echo "$name not ready after ${READY_TIMEOUT}s; the end of .data/$name.log:" >&2
      tail -n 30 "$(logfile "$name")" >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "$name is ready"
}

http_ok() { curl -fsS -o /dev/null --max-time 2 "$1"; }

start_temporal() {
  running temporal && { echo "temporal already running (pid $(<"$(pidfile temporal)"))"; return; }
  # The tuned file-DB settings of DEVSERVER.md: 13x faster than the defaults,
  # and the state survives restarts.
  launch temporal "$BIN/temporal" server start-dev \
    --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
    --db-filename "$DATA/temporal.db" \
    --dynamic-config-value history.transferProcessorMaxPollRPS=1000 \
    --dynamic-config-value matching.numTaskqueueReadPartitions=1 \
    --dynamic-config-value matching.numTaskqueueWritePartitions=1 \
    --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal \
    --search-attribute AgentRunStatus=Keyword --search-attribute ConversationId=Keyword --search-attribute AgentRunActionIds=KeywordList --search-attribute AgentRunAgent=Keyword \
    --log-level warn
  wait_ready temporal "$BIN/temporal" operator cluster health --address "$TEMPORAL_ADDRESS"
}

start_sandbox() {
  running ghsandbox && { echo "ghsandbox already running (pid $(<"$(pidfile ghsandbox)"))"; return; }
  # Its comments and IDs outlive a `make down` like the runs in temporal.db
  # do: a run's links and reconciliations point at them.
  # Its deliveries (a pull request opened or pushed to, a check run's
  # button pressed) go to the approval server's webhook, signed as GitHub
  # signs them.
  launch ghsandbox env SANDBOX_ADDR="$SANDBOX_ADDR" SANDBOX_STATE="$DATA/ghsandbox.json" \
    SANDBOX_WEBHOOK_URL="http://$APPROVAL_ADDR/github/webhook" SANDBOX_WEBHOOK_SECRET="$WEBHOOK_SECRET" "$BIN/ghsandbox"
  wait_ready ghsandbox http_ok "http://$SANDBOX_ADDR/_sandbox/requests"
}

start_worker() {
  running worker && { echo "worker already running (pid $(<"$(pidfile worker)"))"; return; }
  # The sandbox also serves the merchant service the recommend agent reads.
  # A run's check run links to its page on the approval server.
  if ((USE_SANDBOX)); then
    launch worker env AGENT_MERCHANT_URL="http://$SANDBOX_ADDR" AGENTRUN_RUN_PAGE_URL="http://$APPROVAL_ADDR" "$BIN/worker"
  else
    launch worker env AGENTRUN_RUN_PAGE_URL="http://$APPROVAL_ADDR" "$BIN/worker"
  fi
  wait_ready worker grep -q '"worker started"\|msg="worker started"' "$(logfile worker)"
}

start_approval() {
  [[ -x $BIN/approval ]] || { echo "approval server not built yet; skipping it"; return; }
  running approval && { echo "approval already running (pid $(<"$(pidfile approval)"))"; return; }
  # On the sandbox, its pull requests start their own review.
  local auto=()
  ((USE_SANDBOX)) && auto=(AGENTRUN_AUTO_REVIEW="$DEMO_REPO" GITHUB_WEBHOOK_SECRET="$WEBHOOK_SECRET")
  launch approval env APPROVAL_ADDR="$APPROVAL_ADDR" APPROVAL_INSECURE_DEV=1 "${auto[@]}" "$BIN/approval"
  wait_ready approval http_ok "http://$APPROVAL_ADDR/healthz"
}

# webhook_secret is the secret the sandbox signs its deliveries with and the
# approval server checks them by, made once and kept in .data.
webhook_secret() {
  local f=$DATA/webhook-secret
  [[ -s $f ]] || (umask 077 && openssl rand -hex 32 >"$f")
  WEBHOOK_SECRET=$(<"$f")
}

# demo starts the demo run and follows it until it waits for approval. On
# the sandbox with the approval server, the pull request starts it, as on
# GitHub: the sandbox sends its opened delivery (again on a second `up`,
# which finds the same run: its ID comes from the pull request's head).
# Otherwise the starter starts it (the same run again on a second `up`: its
# ID comes from its idempotency key).
demo() {
  local out=$DATA/demo.out run_id action_id
  echo
  if ((USE_SANDBOX)) && [[ -x $BIN/approval ]]; then
    local events=http://$SANDBOX_ADDR/_sandbox/pulls/$DEMO_REPO/$DEMO_PR/events answer
    echo "opening the demo pull request: curl -d '{\"action\":\"opened\"}' $events"
    answer=$(curl -fsS --max-time 30 -d '{"action":"opened"}' "$events")
    run_id=$(grep -o 'run run-[0-9a-f]*' <<<"$answer" | head -n 1 | cut -d' ' -f2) || true
    if [[ -z $run_id ]]; then
      echo "the approval server started no run for the opened delivery; the sandbox's answer: $answer" >&2
      tail -n 20 "$(logfile approval)" >&2
      exit 1
    fi
    echo "the approval server started the review: $run_id"
    "$BIN/starter" events "$run_id" --follow | tee "$out"
  else
    # On the sandbox the run shows itself as a check run on the pull
    # request's page (a personal token on real GitHub may not write checks).
    local check=()
    ((USE_SANDBOX)) && check=(--check-run)
    echo "starting the demo run: bin/starter start --repo $DEMO_REPO --pr $DEMO_PR ${check[*]} --follow"
    "$BIN/starter" start --repo "$DEMO_REPO" --pr "$DEMO_PR" --user "${USER:-cli}" "${check[@]}" --follow | tee "$out"
    run_id=$(head -n 1 "$out")
  fi
  action_id=$(sed -n 's/^run .* is waiting for approval of action \(.*\)$/\1/p' "$out")
  # The starter's own default address is the default port's.
  local starter=bin/starter
  [[ $TEMPORAL_PORT == 7233 ]] || starter="TEMPORAL_ADDRESS=$TEMPORAL_ADDRESS $starter"
  echo
  echo "Temporal UI:   http://localhost:$TEMPORAL_UI_PORT/namespaces/default/workflows/$run_id"
  if [[ -x $BIN/approval ]]; then
    echo "approval page: http://$APPROVAL_ADDR/runs/$run_id"
  fi
  echo "status:        $starter status $run_id"
  if [[ -n $action_id ]]; then
    echo "approve:       $starter approve $run_id --action $action_id --as alice"
    echo "reject:        $starter reject $run_id --action $action_id --as alice --reason 'not now'"
  fi
  if ((USE_SANDBOX)); then
    echo "pull request:  http://$SANDBOX_ADDR/$DEMO_REPO/pull/$DEMO_PR (the check run's buttons decide as the person you pick)"
    echo "recommender:   $starter start --agent recommend --target kind=recommendation_request --target city=riverside" \
      "--target party_size=2 --target budget=150 --goal 'somewhere for two to talk, about 150, coupons welcome' --approver alice --follow"
  fi
  echo "stop it all:   make down"
}

# choose_github decides, and says, which GitHub the worker talks to. An
# exported GITHUB_TOKEN alone never switches the demo to real GitHub: offline
# the demo would hang, online it would post to a real repository.
choose_github() {
  case ${AGENTRUN_GITHUB:-sandbox} in
  sandbox)
    if [[ -n ${GITHUB_TOKEN:-} ]]; then
      echo "GITHUB_TOKEN is set but ignored: make up uses the GitHub sandbox at http://$SANDBOX_ADDR (set AGENTRUN_GITHUB=real to review real repositories)"
    else
      echo "GitHub: the sandbox at http://$SANDBOX_ADDR"
    fi
    USE_SANDBOX=1
    export GITHUB_API_URL=http://$SANDBOX_ADDR/
    # The sandbox takes any token; one keeps the worker from warning that
    # it is anonymous.
    export GITHUB_TOKEN=sandbox
    ;;
  real)
    [[ -n ${GITHUB_TOKEN:-} ]] || { echo "AGENTRUN_GITHUB=real needs GITHUB_TOKEN" >&2; exit 1; }
    local api=${GITHUB_API_URL:-https://api.github.com/} login
    login=$(curl -fsS --max-time 10 -H "Authorization: Bearer $GITHUB_TOKEN" "${api%/}/user" |
      sed -n 's/^ *"login": *"\([^"]*\)".*/\1/p') || true
    [[ -n $login ]] || { echo "AGENTRUN_GITHUB=real: could not read the token's login from ${api%/}/user" >&2; exit 1; }
    echo "!!! REAL GITHUB: the worker reads and posts to $api as $login !!!"
    USE_SANDBOX=0
    ;;
  *)
    echo "AGENTRUN_GITHUB=${AGENTRUN_GITHUB}: want sandbox or real" >&2
    exit 2
    ;;
  esac
}

# port_free HOST:PORT: nothing accepts connections there.
port_free() {
  local host=${1%:*} port=${1##*:}
  ! (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
}

# check_ports fails, before anything starts, when a port a service not yet
# running needs is taken, and names the variable that moves it.
check_ports() {
  local clashes=() entry name var addr
  local wanted=("temporal TEMPORAL_PORT 127.0.0.1:$TEMPORAL_PORT" "temporal TEMPORAL_UI_PORT 127.0.0.1:$TEMPORAL_UI_PORT")
  ((USE_SANDBOX)) && wanted+=("ghsandbox SANDBOX_ADDR $SANDBOX_ADDR")
  [[ -x $BIN/approval ]] && wanted+=("approval APPROVAL_ADDR $APPROVAL_ADDR")
  for entry in "${wanted[@]}"; do
    read -r name var addr <<<"$entry"
    running "$name" && continue
    port_free "$addr" && continue
    local other=$((${addr##*:} + 100))
    [[ $var == *_PORT ]] || other=${addr%:*}:$other
    clashes+=("$addr is in use: set $var to a free one (e.g. $var=$other)")
  done
  if ((${#clashes[@]})); then
    printf 'make up: %s\n' "${clashes[@]}" >&2
    echo "nothing was started" >&2
    exit 1
  fi
}

up() {
  mkdir -p "$DATA"
  choose_github
  webhook_secret
  check_ports
  start_temporal
  ((USE_SANDBOX)) && start_sandbox
  start_worker
  start_approval
  demo
}

# stop NAME: SIGTERM, wait for the exit, SIGKILL only if it will not go.
stop() {
  local name=$1 pf pid deadline
  pf=$(pidfile "$name")
  [[ -f $pf ]] || return 0
  if ! running "$name"; then
    echo "$name is not running (stale .data/$name.pid removed)"
    rm -f "$pf"
    return 0
  fi
  pid=$(<"$pf")
  kill -TERM "$pid"
  # Longer than the worker's AGENT_STOP_TIMEOUT (30s), which lets a post in
  # flight finish instead of leaving it to reconcile.
  deadline=$((SECONDS + 40))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "$name (pid $pid) ignored SIGTERM for 40s; killing it"
    kill -KILL "$pid"
  fi
  rm -f "$pf"
  echo "stopped $name (pid $pid)"
}

down() {
  local i
  for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do
    stop "${SERVICES[i]}"
  done
}

case ${1:-} in
up) up ;;
down) down ;;
*)
  echo "usage: $0 up|down" >&2
  exit 2
  ;;
esac
