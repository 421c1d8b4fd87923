// kp:tune N=9223372036854775807,1
// kp:constraint N*N > 0
// kp:constraint -N - 9223372036854775807 - 1 < 0
// kp:constraint ((((((((((N))))))))))
