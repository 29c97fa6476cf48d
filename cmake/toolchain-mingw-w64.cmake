# Cross-compiles cudnnup for Windows x64 with Debian's mingw-w64 (package g++-mingw-w64-x86-64-posix,
# installed by `scripts/install-deps.sh --windows`). The "-posix" flavour is the one with
# std::thread/std::mutex (winpthreads); the "-win32" flavour lacks them.
#   cmake --preset windows        (or: cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-mingw-w64.cmake)
# Test executables run through Wine (CMAKE_CROSSCOMPILING_EMULATOR), see scripts/test-windows.sh.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${_mingw}-gcc-posix)
set(CMAKE_CXX_COMPILER ${_mingw}-g++-posix)
set(CMAKE_RC_COMPILER ${_mingw}-windres)
set(CMAKE_AR ${_mingw}-ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${_mingw}-ranlib CACHE FILEPATH "")

set(CMAKE_FIND_ROOT_PATH /usr/${_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# A fresh Wine prefix (and a user's Windows machine) has no libgcc_s_seh-1.dll,
# libstdc++-6.dll or libwinpthread-1.dll: link all three into every .exe and .dll.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
# Windows 10 APIs (SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE, ENABLE_VIRTUAL_TERMINAL_PROCESSING,
# AddDllDirectory) are declared only when the target version says so.
add_compile_definitions(_WIN32_WINNT=0x0A00 WINVER=0x0A00 UNICODE _UNICODE NOMINMAX WIN32_LEAN_AND_MEAN)

find_program(CUDNNUP_WINE NAMES wine wine64)
if(CUDNNUP_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CUDNNUP_WINE})
endif()

# -O2 rather than CMake's -O3 for Release: GCC 12 at -O3 reports false -Wrestrict errors inside
# std::string (GCC bug 105329), and -O2 compiles faster on CI's two cores.
set(CMAKE_C_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "")
set(CMAKE_CXX_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "")
