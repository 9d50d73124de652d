# Link with lld when it is installed (scripts/lib/deps.sh installs it): the ASan test binaries
# are a few hundred MB each, and lld links them two to three times faster than GNU ld.
find_program(PROVISIONER_LLD ld.lld)
if(PROVISIONER_LLD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:-fuse-ld=lld>")
endif()
