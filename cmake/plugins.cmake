# kp_add_plugin(LIBRARY FILE): compiles FILE, a plug-in that registers itself with its kind's
# KP_REGISTER_* line (src/common/plugin_registry.h), into the static library LIBRARY.
#
# Nothing calls a plug-in by name, so the linker would leave its object file out of every program.
# The registration line defines an anchor symbol named after the file (kp_plugin_<file stem>, set
# here as KP_PLUGIN_ANCHOR); every program that links LIBRARY, directly or through another library,
# is told that the symbol is needed, which keeps the plug-in in. A file registered without this
# function fails to compile, so a plug-in cannot be silently missing.
function(kp_add_plugin library file)
  get_filename_component(path "${file}" ABSOLUTE)
  get_filename_component(stem "${file}" NAME_WE)
  target_sources(${library} PRIVATE "${path}")
  set_source_files_properties("${path}" TARGET_DIRECTORY ${library}
    PROPERTIES COMPILE_DEFINITIONS "KP_PLUGIN_ANCHOR=kp_plugin_${stem}")
  target_link_options(${library} INTERFACE "LINKER:--undefined=kp_plugin_${stem}")
endfunction()
