#!/bin/sh
# Candidate code that found the request's nonce in memory, writing to the channel descriptor:
# values of the wrong type, invalid UTF-8 and a forged early result before the worker's own last
# message (a failure); the reader must not throw, must keep only valid text, and the last verdict
# counts.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"Fake GPU"}}' >&3
echo '{"nonce":"'"$nonce"'","type":7}' >&3
echo '{"nonce":"'"$nonce"'","type":"progress","phase":[1,2],"detail":"x"}' >&3
echo '{"nonce":"'"$nonce"'","type":"sandbox_notes","notes":[1,"ok"]}' >&3
echo '{"nonce":"'"$nonce"'","type":"result","timing":{"speedup":100.0}}' >&3
printf '{"nonce":"%s","type":"failure","class":"crash","phase":"correctness","message":"illegal address \377\376"}\n' "$nonce" >&3
