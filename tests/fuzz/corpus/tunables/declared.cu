// kp:tune BLOCK=128,256,512 VEC=1,2,4
// kp:tune TILE=16,32
// kp:constraint BLOCK*VEC <= 2048 && TILE % 16 == 0
// kp:constraint (BLOCK / VEC) > 0 || !TILE
__global__ void k() {}
