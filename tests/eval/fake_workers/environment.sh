#!/bin/sh
# Prints the environment it was given (candidate code can read its own).
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
env
echo '{"nonce":"'"$nonce"'","type":"result"}' >&3
