# Script mode: writes OUT, a C++ file holding the bytes of IN as a char array named SYMBOL.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," body "${hex}")
string(REGEX REPLACE "(('\\\\x[0-9a-f][0-9a-f]',){32})" "\\1\n" body "${body}")
file(WRITE "${OUT}" "// Generated from ${IN}; do not edit.\nextern const char ${SYMBOL}[];\nextern const unsigned long long ${SYMBOL}_size;\nconst char ${SYMBOL}[] = {\n${body}'\\0'};\nconst unsigned long long ${SYMBOL}_size = ${size};\n")
