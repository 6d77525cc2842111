# Writes the bytes of INPUT as a C++ initializer list ("0x12,0x34,...") to
# OUTPUT, for a source file to #include inside an array's braces: how the
# shipped default network (networks/) is compiled into the binaries.
# Refuses a file over MAX_BYTES (0: no limit), naming it.
#   cmake -DINPUT=FILE -DOUTPUT=FILE -DMAX_BYTES=N -P embed_file.cmake
if(NOT EXISTS "${INPUT}")
  message(FATAL_ERROR "embed_file: no file ${INPUT}")
endif()
file(SIZE "${INPUT}" size)
if(MAX_BYTES GREATER 0 AND size GREATER MAX_BYTES)
  message(FATAL_ERROR
    "embed_file: ${INPUT} is ${size} bytes; at most ${MAX_BYTES} may ship")
endif()
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${name} (${size} bytes) by cmake/embed_file.cmake.\n"
  "${bytes}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
