#!/bin/sh
# mem's CI check: fails (exit 1) unless the memory in the current directory is tidy — no lint
# problem or pending normalisation, nothing to compact, promote or consolidate — and a smoke search
# finds something. Every step runs; each failing one is named at the end. Writes nothing but
# the derived index (.memory.db, git-ignored) that the search builds.
#
#   MEM              how to run mem (default: mem), e.g. MEM="node /opt/mem/bin/mem.js"
#   MEM_SMOKE_QUERY  words the search must find at least one entry for (default: the title of
#                    the first entry mem list shows, so any vault with an entry passes)
#
# Usage: sh check.sh            (from the project's root, or set MEM_ROOT)

set -u
MEM=${MEM:-mem}
failed=''

# Runs one step; a non-zero exit (1: not clean, 2: usage error, anything else) fails it.
step() {
  name=$1
  shift
  printf '== mem %s\n' "$name" >&2
  if "$@"; then
    printf '== ok: mem %s\n' "$name" >&2
  else
    printf '== FAILED: mem %s\n' "$name" >&2
    failed="$failed
  mem $name"
  fi
}

# $MEM is a command line (a program and its first arguments): split on purpose.
# shellcheck disable=SC2086
run() { $MEM "$@"; }

smoke() {
  query=${MEM_SMOKE_QUERY:-}
  if [ -z "$query" ]; then
    query=$(run list --json | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>{const e=JSON.parse(s).entries;process.stdout.write(e.length?e[0].title:"")})') || return 1
    if [ -z "$query" ]; then
      echo "check.sh: the vault has no entries to search for" >&2
      return 1
    fi
  fi
  n=$(run search "$query" --json | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>process.stdout.write(String(JSON.parse(s).results.length)))') || return 1
  echo "mem search \"$query\": $n result(s)"
  [ "$n" -gt 0 ]
}

step 'lint --check' run lint --check
step 'compact --check' run compact --check
step 'promote --check' run promote --check
step 'consolidate --check' run consolidate --check
step 'search (smoke query)' smoke

if [ -n "$failed" ]; then
  printf 'check.sh: memory is not clean; failed:%s\n' "$failed" >&2
  exit 1
fi
echo 'check.sh: memory is clean' >&2
