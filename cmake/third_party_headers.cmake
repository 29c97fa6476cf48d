# Makes CLI11, nlohmann-json and fmt (all header-only here) available as the INTERFACE target
# cudnnup_third_party, for native and cross builds alike.
# CUDNNUP_THIRD_PARTY_INCLUDE: where they are. The portable build (scripts/build-portable.sh) runs
# in a Debian 11 root and passes a copy of this machine's Debian 12 headers, so that both builds
# compile against the same library versions.
set(CUDNNUP_THIRD_PARTY_INCLUDE "/usr/include" CACHE PATH "Where CLI/, nlohmann/ and fmt/ headers are")
set(_tp_dir "${CMAKE_BINARY_DIR}/third_party_include")
file(MAKE_DIRECTORY "${_tp_dir}")
foreach(_lib CLI nlohmann fmt)
  if(NOT EXISTS "${CUDNNUP_THIRD_PARTY_INCLUDE}/${_lib}")
    message(FATAL_ERROR "${CUDNNUP_THIRD_PARTY_INCLUDE}/${_lib} is missing: run scripts/install-deps.sh")
  endif()
  if(NOT EXISTS "${_tp_dir}/${_lib}")
    file(CREATE_LINK "${CUDNNUP_THIRD_PARTY_INCLUDE}/${_lib}" "${_tp_dir}/${_lib}" SYMBOLIC)
  endif()
endforeach()
add_library(cudnnup_third_party INTERFACE)
target_include_directories(cudnnup_third_party SYSTEM INTERFACE "${_tp_dir}")
target_compile_definitions(cudnnup_third_party INTERFACE FMT_HEADER_ONLY=1)
