#!/bin/sh
# Prints the scratch folder the request names, after checking it exists and is writable.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"Fake GPU"}}' >&3
scratch=$(printf '%s' "$request" | sed -n 's/.*"scratch":"\([^"]*\)".*/\1/p')
test -d "$scratch" && touch "$scratch/left-behind" && echo "scratch=$scratch"
echo '{"nonce":"'"$nonce"'","type":"result"}' >&3
