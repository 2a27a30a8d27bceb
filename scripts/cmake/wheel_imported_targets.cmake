# Included by the interface packages in scripts/ after their find_package() calls.
#
# The wheel-built imported targets <pkg>::<pkg>__rosidl_generator_py carry an
# include directory of the wheel build image
# (/opt/python/cp311-cp311/include/python3.11) that does not exist here; CMake's
# generate step rejects non-existent INTERFACE_INCLUDE_DIRECTORIES of imported
# targets. Drop such entries (generator expressions are kept as they are).
get_directory_property(_imported_targets IMPORTED_TARGETS)
foreach(_target IN LISTS _imported_targets)
  if(NOT _target MATCHES "__rosidl_generator_py$")
    continue()
  endif()
  get_target_property(_dirs ${_target} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT _dirs)
    continue()
  endif()
  set(_kept "")
  foreach(_dir IN LISTS _dirs)
    if(_dir MATCHES "^\\$<" OR EXISTS "${_dir}")
      list(APPEND _kept "${_dir}")
    else()
      message(STATUS "${PROJECT_NAME}: dropping missing include dir '${_dir}' from ${_target}")
    endif()
  endforeach()
  set_target_properties(${_target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_kept}")
endforeach()
