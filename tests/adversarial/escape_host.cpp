// The escape suite's candidates as plain host code for the CPU suite: the same source the GPU
// suite builds with nvcc, compiled here without CUDA (KP_GOAL and KP_ROUTE come from CMake).
#include "escape_candidate.cu"
