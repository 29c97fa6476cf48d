# Static libarchive and libcurl for the portable Linux binary, from CUDNNUP_PORTABLE_DEPS (built by
# scripts/build-portable.sh from Debian's source packages), mimalloc as cudnnup's malloc (the same
# prefix, lib/mimalloc.o: linked into cudnnup only, src/CMakeLists.txt), and OpenSSL, zlib and xz from the
# build system's own static archives (Debian 11's -dev packages there). Nothing here is a shared
# library: the binary's NEEDED list stays glibc's (scripts/check-portable.sh checks it).
set(OPENSSL_USE_STATIC_LIBS TRUE)
find_package(OpenSSL REQUIRED)
find_library(CUDNNUP_STATIC_Z NAMES libz.a REQUIRED)
find_library(CUDNNUP_STATIC_LZMA NAMES liblzma.a REQUIRED)
find_package(Threads REQUIRED)

add_library(cudnnup_static_libarchive STATIC IMPORTED)
set_target_properties(cudnnup_static_libarchive PROPERTIES
  IMPORTED_LOCATION "${CUDNNUP_PORTABLE_DEPS}/lib/libarchive.a"
  INTERFACE_INCLUDE_DIRECTORIES "${CUDNNUP_PORTABLE_DEPS}/include"
  INTERFACE_COMPILE_DEFINITIONS LIBARCHIVE_STATIC
  INTERFACE_LINK_LIBRARIES "${CUDNNUP_STATIC_LZMA};${CUDNNUP_STATIC_Z}")

add_library(cudnnup_static_libcurl STATIC IMPORTED)
set_target_properties(cudnnup_static_libcurl PROPERTIES
  IMPORTED_LOCATION "${CUDNNUP_PORTABLE_DEPS}/lib/libcurl.a"
  INTERFACE_INCLUDE_DIRECTORIES "${CUDNNUP_PORTABLE_DEPS}/include"
  INTERFACE_COMPILE_DEFINITIONS CURL_STATICLIB
  INTERFACE_LINK_LIBRARIES "OpenSSL::SSL;OpenSSL::Crypto;${CUDNNUP_STATIC_Z};Threads::Threads;${CMAKE_DL_LIBS}")

# mimalloc in place of glibc's malloc: one object whose malloc/free/... the dynamic linker binds
# ahead of libc's (docs/design.md, "The portable binary").
set(CUDNNUP_MALLOC_OBJECT "${CUDNNUP_PORTABLE_DEPS}/lib/mimalloc.o")
if(NOT EXISTS "${CUDNNUP_MALLOC_OBJECT}")
  message(FATAL_ERROR "${CUDNNUP_MALLOC_OBJECT} is missing: rebuild the portable dependencies (scripts/build-portable.sh)")
endif()
