# Project-wide compile options: strict warnings everywhere, sanitizers in the debug preset.
# C++ sources only: nvcc (agent/cuda_backend.cmake) does not take these flags raw.
add_library(project_options INTERFACE)
target_compile_options(project_options INTERFACE
  "$<$<COMPILE_LANGUAGE:CXX>:-Wall;-Wextra;-Wshadow;-Werror>")
if(PROVISIONER_SANITIZE)
  target_compile_options(project_options INTERFACE "$<$<COMPILE_LANGUAGE:CXX>:\
-fsanitize=address,undefined;-fno-omit-frame-pointer;-fno-sanitize-recover=undefined>")
  target_link_options(project_options INTERFACE -fsanitize=address,undefined)
endif()
# g++ 12 at -O2/-O3 reports -Wrestrict for `"literal" + std::string` (GCC bug 105651).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(project_options INTERFACE "$<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>")
endif()
