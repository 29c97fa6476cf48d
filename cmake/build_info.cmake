# Where the binary comes from, for `cudnnup --version`: the commit and its date, read from git
# when configuring, never the build time, so two builds of one commit print the same. Builds
# from a tarball (no git) pass them: -DCUDNNUP_COMMIT=<sha> -DCUDNNUP_COMMIT_DATE=<ISO 8601>,
# or SOURCE_DATE_EPOCH (reproducible-builds.org) for the date. CMake re-runs this when HEAD moves.
set(CUDNNUP_COMMIT "" CACHE STRING "Commit cudnnup is built from (default: git rev-parse HEAD when configuring)")
set(CUDNNUP_COMMIT_DATE "" CACHE STRING "Date of that commit, ISO 8601 (default: SOURCE_DATE_EPOCH, else git)")

find_package(Git QUIET)
set(_git_ok FALSE)
if(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${PROJECT_SOURCE_DIR}" rev-parse --absolute-git-dir
                  OUTPUT_VARIABLE _git_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0)
    set(_git_ok TRUE)
  endif()
endif()

set(CUDNNUP_BUILD_COMMIT "${CUDNNUP_COMMIT}")
if(CUDNNUP_BUILD_COMMIT STREQUAL "" AND _git_ok)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${PROJECT_SOURCE_DIR}" rev-parse HEAD
                  OUTPUT_VARIABLE CUDNNUP_BUILD_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()

set(CUDNNUP_BUILD_COMMIT_DATE "${CUDNNUP_COMMIT_DATE}")
if(CUDNNUP_BUILD_COMMIT_DATE STREQUAL "" AND DEFINED ENV{SOURCE_DATE_EPOCH})
  # string(TIMESTAMP) reads SOURCE_DATE_EPOCH instead of the clock when it is set.
  string(TIMESTAMP CUDNNUP_BUILD_COMMIT_DATE "%Y-%m-%dT%H:%M:%SZ" UTC)
endif()
if(CUDNNUP_BUILD_COMMIT_DATE STREQUAL "" AND _git_ok)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env TZ=UTC
                          "${GIT_EXECUTABLE}" -C "${PROJECT_SOURCE_DIR}" log -1 "--date=format-local:%Y-%m-%dT%H:%M:%SZ" --format=%cd HEAD
                  OUTPUT_VARIABLE CUDNNUP_BUILD_COMMIT_DATE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()

if(_git_ok)
  # A new commit or checkout changes HEAD or the branch's ref: configure again then.
  set(_watch "${_git_dir}/HEAD")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${PROJECT_SOURCE_DIR}" symbolic-ref -q HEAD
                  OUTPUT_VARIABLE _ref OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT _ref STREQUAL "")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${PROJECT_SOURCE_DIR}" rev-parse --path-format=absolute --git-path "${_ref}"
                    OUTPUT_VARIABLE _ref_file OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(EXISTS "${_ref_file}")
      list(APPEND _watch "${_ref_file}")
    endif()
  endif()
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_watch})
endif()

configure_file("${PROJECT_SOURCE_DIR}/cmake/build_info.cc.in" "${CMAKE_BINARY_DIR}/generated/build_info.cc" @ONLY)
target_sources(cudnnup_app PRIVATE "${CMAKE_BINARY_DIR}/generated/build_info.cc")
