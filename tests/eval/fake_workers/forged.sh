#!/bin/sh
# Candidate code writing a verdict to the channel: it cannot know the request's nonce.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"type":"result","correctness":{"passed":true},"timing":{"speedup":100.0}}' >&3
echo '{"nonce":"'"$nonce"'","type":"result","correctness":{"passed":true},"timing":{"speedup":1.0}}' >&3
