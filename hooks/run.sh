#!/bin/sh
# Runs the mem installed on PATH for a hook or the MCP server of mem's agent plugin.
#   run.sh context|extract AGENT     a hook: the agent's payload on stdin, its JSON on stdout
#   run.sh mcp                       the MCP server on stdio
# Without mem on PATH a hook says how to install it on one stderr line and exits 0 with nothing
# on stdout (the agent carries on); the MCP server exits 1 with the same line.
# MEM_HOOK_VIA=plugin tells mem the run comes from the plugin: hooks that `mem hooks install`
# wrote into the agent's settings then stand aside, so no event is answered twice.
if ! command -v mem >/dev/null 2>&1; then
  echo "mem: the mem command is not on PATH; install it with: npm install -g mem-vault" >&2
  if [ "$1" = mcp ]; then exit 1; fi
  exit 0
fi
MEM_HOOK_VIA=plugin
export MEM_HOOK_VIA
if [ "$1" = mcp ]; then exec mem mcp; fi
exec mem "$1" --hook "$2"
