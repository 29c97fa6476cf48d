# cmake -DBINARY=cudnnup -DOUT=DIR -P write_completions.cmake: writes what `cudnnup completions
# SHELL` prints for bash, zsh and fish into DIR under the names each shell looks up
# (cmake/install_rules.cmake installs them).
foreach(_pair "bash;cudnnup" "zsh;_cudnnup" "fish;cudnnup.fish")
  list(GET _pair 0 _shell)
  list(GET _pair 1 _name)
  execute_process(COMMAND "${BINARY}" completions ${_shell} OUTPUT_FILE "${OUT}/${_name}" RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${BINARY} completions ${_shell} failed (${_rc})")
  endif()
endforeach()
