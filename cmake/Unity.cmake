# Unity builds (SHARDSIM_UNITY, top-level CMakeLists.txt): shardsim_unity(target batch_size)
# compiles the target's sources in batches of batch_size files (0: one batch per target), each
# batch one translation unit. Sources that cannot share a translation unit with the others of
# their target (two helpers of the same name in anonymous namespaces, say) are listed in
# SHARDSIM_UNITY_SKIP, relative to the source tree, and compiled on their own.
set(SHARDSIM_UNITY_LIB_BATCH 16 CACHE STRING "Unity batch size of the module libraries (0: one batch)")
set(SHARDSIM_UNITY_TEST_BATCH 16 CACHE STRING "Unity batch size of the test executables (0: one batch)")
include(${CMAKE_CURRENT_LIST_DIR}/UnitySkip.cmake)
foreach(skipped IN LISTS SHARDSIM_UNITY_SKIP)
  if(NOT EXISTS ${CMAKE_SOURCE_DIR}/${skipped})
    message(FATAL_ERROR "cmake/UnitySkip.cmake lists ${skipped}, which does not exist: remove it "
                        "(or fix its path if the file moved)")
  endif()
endforeach()
function(shardsim_unity target batch)
  if(NOT SHARDSIM_UNITY)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
  get_target_property(srcs ${target} SOURCES)
  foreach(src IN LISTS srcs)
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${src})
    if(rel IN_LIST SHARDSIM_UNITY_SKIP)
      set_source_files_properties(${src} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endforeach()
endfunction()
