#!/bin/sh
# A stand-in worker for a pool of two GPUs whose second is broken: pinned to GPU 1
# (CUDA_VISIBLE_DEVICES=1) it dies before its hello, as on a lost device; elsewhere it answers like
# a healthy worker and names the device it was pinned to.
request=$(cat)
nonce=$(printf '%s' "$request" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
if [ "$CUDA_VISIBLE_DEVICES" = "1" ]; then kill -SEGV $$; fi
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"Fake GPU","uuid":"GPU-fake-'"$CUDA_VISIBLE_DEVICES"'"}}' >&3
echo '{"nonce":"'"$nonce"'","type":"result","correctness":{"passed":true},"timing":{"speedup":2.0}}' >&3
