# INPUTS is a |-separated list (a ; would split the command line).
string(REPLACE "|" ";" INPUTS "${INPUTS}")
# Writes OUT (a C++ file) holding each of INPUTS (page files) as a raw string literal, so the
# report's own script and stylesheet travel inside the kernelpro binary.
set(code "// Generated from src/report/page/ by embed_page_assets.cmake; do not edit.\n#include \"report/page_assets.h\"\nnamespace kp::report {\nconst PageAsset kPageAssets[] = {\n")
foreach(input ${INPUTS})
  file(READ ${input} text)
  get_filename_component(name ${input} NAME)
  string(APPEND code "    {\"${name}\", R\"kp_page_asset(${text})kp_page_asset\"},\n")
endforeach()
list(LENGTH INPUTS count)
string(APPEND code "};\nconst int kPageAssetCount = ${count};\n}  // namespace kp::report\n")
file(WRITE ${OUT}.tmp "${code}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
