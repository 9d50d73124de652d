# Compiles through ccache when it is installed: a rebuild after a branch switch, a second
# worktree or a fresh CI clone on the same machine reuses what was compiled before. Paths are
# made relative to the source tree (scripts/test sets CCACHE_BASEDIR and CCACHE_NOHASHDIR) so a
# clone in another folder hits the same entries.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
endif()
