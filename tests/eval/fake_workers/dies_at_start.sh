#!/bin/sh
# A worker that dies while starting the GPU (a broken driver install), before its hello.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
kill -SEGV $$
