#!/bin/sh
# A worker that answers like a healthy one (reads the request, reports, and prints to stdout).
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"Fake GPU"}}' >&3
echo '{"nonce":"'"$nonce"'","type":"progress","phase":"correctness"}' >&3
echo "candidate printed this"
echo '{"nonce":"'"$nonce"'","type":"result","correctness":{"passed":true},"timing":{"speedup":2.0}}' >&3
