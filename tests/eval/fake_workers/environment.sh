#!/bin/sh
# Prints the environment it was given (candidate code can read its own).
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"Fake GPU"}}' >&3
env
echo '{"nonce":"'"$nonce"'","type":"result"}' >&3
