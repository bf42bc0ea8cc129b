# ksc_embed_file(<input> <output> <symbol>): generate <output> (a .inc file
# defining the C++ string <symbol> with the text of <input>) at build time.
function(ksc_embed_file input output symbol)
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output}
            -DSYMBOL=${symbol} -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake
    DEPENDS "${input}" "${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake"
    COMMENT "Embedding ${input}"
    VERBATIM)
endfunction()
