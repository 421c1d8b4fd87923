# The build folder is laid out like an install prefix (bin/, lib/, include/kernelpro,
# share/kernelpro, libexec/kernelpro), so the resource locator (src/common/resource_locator.h)
# finds the same relative paths in both. bin/ and lib/ hold what the build produces; the rest are
# links into the checkout, so an edited prompt is used without rebuilding.
function(kp_link_into_build_tree source link)
  get_filename_component(parent ${link} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  file(CREATE_LINK ${source} ${link} SYMBOLIC)
endfunction()

kp_link_into_build_tree(${PROJECT_SOURCE_DIR}/include/kernelpro ${PROJECT_BINARY_DIR}/include/kernelpro)
kp_link_into_build_tree(${PROJECT_SOURCE_DIR}/prompts ${PROJECT_BINARY_DIR}/share/kernelpro/prompts)
kp_link_into_build_tree(${PROJECT_SOURCE_DIR}/autoprofiler ${PROJECT_BINARY_DIR}/share/kernelpro/autoprofiler)
kp_link_into_build_tree(${PROJECT_SOURCE_DIR}/python ${PROJECT_BINARY_DIR}/share/kernelpro/python)
# nvdisasm and cuobjdump from PyPI, where scripts/install-nvidia-tools puts them (the link may
# dangle until it has run: the locator then looks elsewhere).
kp_link_into_build_tree(${PROJECT_SOURCE_DIR}/.tools/nvidia ${PROJECT_BINARY_DIR}/libexec/kernelpro/nvidia)
