# `cmake --install build --prefix P` makes a relocatable prefix; the resource locator finds
# everything relative to P/bin (docs/install.md):
#   bin/                      kernelpro, kernelpro-worker, kernelpro-ceilings
#   lib/                      libkp_timeline.so, libkp_counters.so (CUPTI, loaded at run time),
#                             libkp_launch_gate.so (the cluster launches of CUTLASS candidates),
#                             libkernelpro_worker.so and libkp_torch_{eager,compile}.so (PyTorch tasks)
#   include/kernelpro/        abi.h, the candidate ABI
#   share/kernelpro/prompts   the LLM prompt templates
#   share/kernelpro/tasks     the example tasks
#   share/kernelpro/python    kernelpro_torch, the PyTorch bridge and importer
#   libexec/kernelpro/nvidia  nvdisasm and cuobjdump from PyPI, when scripts/install-nvidia-tools
#                             fetched them (the CUDA toolkit's own are used otherwise)
# The folder names are fixed (no lib64): the locator looks for exactly these.

# Programs look for the libraries they link next to them first; the worker also needs the CUDA
# runtime, which it links from the toolkit.
set_target_properties(kernelpro PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
set_target_properties(kernelpro-worker PROPERTIES INSTALL_RPATH "$ORIGIN/../lib;${CUDAToolkit_LIBRARY_DIR}")
install(TARGETS kernelpro kernelpro-worker RUNTIME DESTINATION bin)
set_target_properties(kernelpro_worker PROPERTIES INSTALL_RPATH "$ORIGIN;${CUDAToolkit_LIBRARY_DIR}")
foreach(library kp_timeline kp_counters kp_launch_gate kernelpro_worker kp_torch_eager kp_torch_compile)
  if(TARGET ${library})
    install(TARGETS ${library} LIBRARY DESTINATION lib)
  endif()
endforeach()
get_property(KP_CEILINGS_BINARY GLOBAL PROPERTY KP_CEILINGS_BINARY)
if(KP_CEILINGS_BINARY)
  install(PROGRAMS ${KP_CEILINGS_BINARY} DESTINATION bin)
endif()

install(FILES ${PROJECT_SOURCE_DIR}/include/kernelpro/abi.h DESTINATION include/kernelpro)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/prompts/ DESTINATION share/kernelpro/prompts)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/autoprofiler/ DESTINATION share/kernelpro/autoprofiler)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tasks/ DESTINATION share/kernelpro/tasks)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/kernelpro_torch DESTINATION share/kernelpro/python PATTERN __pycache__ EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/.tools/nvidia/ DESTINATION libexec/kernelpro/nvidia
        USE_SOURCE_PERMISSIONS OPTIONAL)
