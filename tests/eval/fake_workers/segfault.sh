#!/bin/sh
# A host-side crash in candidate code: the worker dies by SIGSEGV without a word.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"Fake GPU"}}' >&3
echo '{"nonce":"'"$nonce"'","type":"progress","phase":"correctness"}' >&3
kill -SEGV $$
