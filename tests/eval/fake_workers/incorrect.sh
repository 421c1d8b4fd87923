#!/bin/sh
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"Fake GPU"}}' >&3
echo '{"nonce":"'"$nonce"'","type":"failure","class":"incorrect","phase":"correctness","message":"output y: mismatch at 3"}' >&3
