# Writes the contents of INPUT into OUTPUT as a C++ raw string literal named
# SYMBOL:  static const char SYMBOL[] = R"ksc_embed(...)ksc_embed";
# Run as: cmake -DINPUT=... -DOUTPUT=... -DSYMBOL=... -P EmbedFile.cmake
file(READ "${INPUT}" contents)
string(FIND "${contents}" ")ksc_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/EmbedFile.cmake. Do not edit.\n"
  "static const char ${SYMBOL}[] = R\"ksc_embed(${contents})ksc_embed\";\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
