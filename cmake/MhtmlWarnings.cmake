# Warnings for the project's own targets: -Wall -Wextra -Wpedantic must stay clean.
function(mhtml_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(MHTML_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
