# mcp.sh — sourced by the scripted roles: one MCP session per call, straight over stdio.
# mcp_call PROFILE TOOL ARGUMENTS_JSON prints the tool's structuredContent, or fails with the
# server's error message. Needs SCHEDNAV_BIN (the tools) and WORKSPACE.

mcp_call() {
	profile=$1 tool=$2 args=$3
	request=$(jq -cn --arg t "$tool" --argjson a "$args" '{jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: $t, arguments: $a}}')
	reply=$(printf '%s\n%s\n%s\n' \
		'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"scripted-agent","version":"1"}}}' \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}' "$request" |
		"$SCHEDNAV_BIN/schednav-mcp" --profile "$profile" --workspace "$WORKSPACE" | jq -c 'select(.id == 1)')
	if [ "$(printf '%s' "$reply" | jq -r '.error != null or .result.isError == true')" = true ]; then
		printf '%s: %s\n' "$tool" "$(printf '%s' "$reply" | jq -r '.error.message // .result.content[0].text')" >&2
		return 1
	fi
	printf '%s\n' "$reply" | jq -c .result.structuredContent
}

# task_meta DIR TASK WORKER PROJECT: the agent host's record of an assignment.
task_meta() {
	mkdir -p "$1/$2"
	jq -cn --arg t "$2" --arg w "$3" --arg p "$4" '{task_id: $t, project_id: $p, assigned_to: $w, status: "completed"}' > "$1/$2/meta.json"
}
