# cmake -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name -DHEADER=header.h -P embed-text.cmake
#
# Writes OUTPUT, a C source defining `const char SYMBOL[]`: the bytes of
# INPUT as a string literal, one literal per line of INPUT.  The file is
# read as hex and every byte written as \xNN, so quotes, backslashes,
# question marks (trigraphs), carriage returns (which file(READ) as text
# would drop) and any other byte come out exactly; a \xNN is always
# followed by another escape or the closing quote, never by a hex digit.
foreach(var INPUT OUTPUT SYMBOL HEADER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed-text.cmake: -D${var}= is required")
  endif()
endforeach()

file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "(..)" "\\\\x\\1" text "${hex}")
string(REPLACE "\\x0a" "\\x0a\"\n\t\"" text "${text}")

get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
     "/* Generated from ${name} by cmake/embed-text.cmake: do not edit. */\n"
     "#include \"${HEADER}\"\n\n"
     "const char ${SYMBOL}[] =\n\t\"${text}\";\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
