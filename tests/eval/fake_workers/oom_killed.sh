#!/bin/sh
# What the kernel's out-of-memory killer does: SIGKILL from outside.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
kill -KILL $$
