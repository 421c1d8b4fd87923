#!/bin/sh
# Candidate host code that never returns: the worker goes silent.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"Fake GPU"}}' >&3
echo '{"nonce":"'"$nonce"'","type":"progress","phase":"correctness"}' >&3
exec sleep 60
