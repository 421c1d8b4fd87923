#!/bin/sh
# What the filter does to a system call of another architecture (int 0x80): SIGSYS.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"Fake GPU"}}' >&3
kill -SYS $$
