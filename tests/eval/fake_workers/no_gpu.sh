#!/bin/sh
# What the worker says on a machine without a usable GPU: a failure before its hello, when no
# kernel library has been loaded yet.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"failure","class":"crash","phase":"init","message":"no usable GPU: no CUDA-capable device is detected"}' >&3
