# agent_cuda: the real GPU backend (CUDA runtime + cuBLAS for the tests, NVML loaded at run time
# with dlopen, so the agent starts on machines without the driver). Built only when a CUDA
# compiler is found and PROVISIONER_WITH_CUDA is ON. NVML is never linked: there is no nvml.h or
# libnvidia-ml on a build machine without a driver.
option(PROVISIONER_WITH_CUDA "Build the CUDA + NVML GPU backend of the agent when a toolkit exists" ON)

if(PROVISIONER_WITH_CUDA AND TARGET agent_protocol)
  include(CheckLanguage)
  # nvcc must use the same host compiler as the C++ sources.
  if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER)
    set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
  endif()
  check_language(CUDA)
endif()

if(PROVISIONER_WITH_CUDA AND TARGET agent_protocol AND CMAKE_CUDA_COMPILER)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80;90")  # A100, H100/H200
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)

  # agent_nvml: the NVML half (plain C++, dlopen, no CUDA library), on its own so the unit tests
  # need not load cuBLAS (~600 MB of shared objects, ~1 s per test process under ASan).
  file(GLOB AGENT_NVML_SOURCES CONFIGURE_DEPENDS src/cuda/nvml_*.cpp src/cuda/gpu_identity.cpp
    src/cuda/gpu_reset.cpp)
  add_library(agent_nvml STATIC ${AGENT_NVML_SOURCES})
  target_include_directories(agent_nvml PUBLIC include PRIVATE src)
  target_link_libraries(agent_nvml PUBLIC agent_protocol common PRIVATE ${CMAKE_DL_LIBS})

  file(GLOB AGENT_CUDA_SOURCES CONFIGURE_DEPENDS src/cuda/*.cu src/cuda/*.cpp)
  list(REMOVE_ITEM AGENT_CUDA_SOURCES ${AGENT_NVML_SOURCES})
  add_library(agent_cuda STATIC ${AGENT_CUDA_SOURCES})
  target_include_directories(agent_cuda PUBLIC include PRIVATE src)
  # project_options (via agent_protocol) guards its flags to C++ sources; nvcc gets its own.
  target_link_libraries(agent_cuda PUBLIC agent_nvml agent_protocol common
    PRIVATE CUDA::cudart CUDA::cublas ${CMAKE_DL_LIBS})
  target_compile_options(agent_cuda PRIVATE
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra;--Werror=all-warnings>")
  # One CUDA runtime: the shared one CUDA::cudart names, not nvcc's default static copy.
  set_target_properties(agent_cuda PROPERTIES CUDA_RUNTIME_LIBRARY Shared CUDA_STANDARD 17
    POSITION_INDEPENDENT_CODE ON)
  message(STATUS "agent: CUDA backend enabled (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
    "architectures ${CMAKE_CUDA_ARCHITECTURES})")

  # A stand-in libnvidia-ml for the unit tests: the NVML path runs without a GPU or driver.
  if(PROVISIONER_BUILD_TESTS)
    add_library(agent_fake_nvml MODULE src/cuda/fake/fake_nvml.cpp)
    target_link_libraries(agent_fake_nvml PRIVATE project_options)
    target_include_directories(agent_fake_nvml PRIVATE src)
  endif()
else()
  message(STATUS "agent: CUDA backend not built (PROVISIONER_WITH_CUDA=${PROVISIONER_WITH_CUDA}, "
    "CUDA compiler '${CMAKE_CUDA_COMPILER}')")
endif()
