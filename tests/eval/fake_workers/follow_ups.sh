#!/bin/sh
# A counters worker with follow-ups: the request is its first line on stdin and each later line a
# follow-up; every one is answered with a `collection` message whose counters name this process
# (chip "pid<N>"), the collection's number (passes) and the metrics it was asked for (asked); the
# end of stdin ends it with a result. FAKE_FORGE=1: a line without the nonce before the first
# collection (candidate code writing to the channel); FAKE_EXIT=1: it exits after its hello.
IFS= read -r line
nonce=$(printf '%s' "$line" | sed -n 's/.*"nonce":"\([0-9a-f]*\)".*/\1/p')
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"Fake GPU"}}' >&3
[ "$FAKE_FORGE" = 1 ] && echo '{"type":"collection","counters":{}}' >&3
[ "$FAKE_EXIT" = 1 ] && exit 0
n=0
while :; do
  n=$((n + 1))
  asked=$(printf '%s' "$line" | sed -n 's/.*"counter_metrics":\(\[[^]]*\]\).*/\1/p')
  echo '{"nonce":"'"$nonce"'","type":"collection","counters":{"chip":"pid'$$'","passes":'$n',"asked":'"${asked:-[]}"',"seconds":{"setup":0.001,"passes":0.002},"ranges":[{"index":0,"name":"","metrics":{"gpu__time_duration.sum":1000}}]}}' >&3
  IFS= read -r line || break
done
echo '{"nonce":"'"$nonce"'","type":"result","collections":'$n'}' >&3
