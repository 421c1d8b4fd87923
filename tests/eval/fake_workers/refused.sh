#!/bin/sh
# --require-sandbox on a host that lacks a layer: the worker refuses before candidate code loads.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"refused","message":"the sandbox is required (--require-sandbox) but incomplete: landlock (unavailable: no Landlock)"}' >&3
