#!/bin/sh
# What the sandbox's supervisor says after ending the child that tried a forbidden call.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"progress","phase":"load"}' >&3
echo '{"nonce":"'"$nonce"'","type":"sandbox_violation","message":"sandbox: execve(\"/bin/sh\") denied: starting programs is not allowed"}' >&3
