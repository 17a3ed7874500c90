# editgate_embed(OUT PREFIX NAMESPACE FILES...): OUT, a C++ file made by
# cmake/embed.cmake at build time, carrying FILES as char arrays named
# PREFIX + the file's name (see there), remade when one of them changes.
function(editgate_embed out prefix namespace)
  set(inputs ${ARGN})
  string(REPLACE ";" "|" input_list "${inputs}")  # one argument for the script
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} "-DINPUTS=${input_list}" -DOUT=${out} -DPREFIX=${prefix} -DNAMESPACE=${namespace}
            -P ${PROJECT_SOURCE_DIR}/cmake/embed.cmake
    DEPENDS ${inputs} ${PROJECT_SOURCE_DIR}/cmake/embed.cmake
    COMMENT "Embedding ${prefix}files in ${namespace}"
    VERBATIM)
endfunction()
