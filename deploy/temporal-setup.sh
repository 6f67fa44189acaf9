#!/bin/sh
# Registers the search attributes the AgentRun workflow upserts (see
# workflows/api.go). An upsert of an unregistered attribute fails the workflow
# task, so docker-compose starts the workers only after this script succeeds.
# Running it again changes nothing.
set -eu

address="${TEMPORAL_ADDRESS:?set TEMPORAL_ADDRESS}"
namespace="${TEMPORAL_NAMESPACE:?set TEMPORAL_NAMESPACE}"

# A namespace auto-setup has just created takes a few seconds to reach every
# frontend's namespace cache; until then the calls below fail.
attempts=30

registered() {
	temporal operator search-attribute list --address "$address" --namespace "$namespace" |
		grep -Eq "^[[:space:]]*$1[[:space:]]+$2[[:space:]]*\$"
}

register() {
	name="$1"
	type="$2"
	try=1
	while ! registered "$name" "$type"; do
		if [ "$try" -gt "$attempts" ]; then
			echo "temporal-setup: could not register $name ($type) in namespace $namespace" >&2
			exit 1
		fi
		temporal operator search-attribute create --address "$address" --namespace "$namespace" \
			--name "$name" --type "$type" || sleep 2
		try=$((try + 1))
	done
	echo "temporal-setup: $name ($type) is registered in namespace $namespace"
}

register AgentRunStatus Keyword
register ConversationId Keyword
register AgentRunActionIds KeywordList
register AgentRunAgent Keyword
