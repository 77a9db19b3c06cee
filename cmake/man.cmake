cmake_minimum_required(VERSION 3.25)
# Writes the man pages into OUT from the built binary: skillsync.1 and one
# skillsync-<command>.1 per command that `skillsync help --commands` lists (so a command added
# to cmd/main.c's table gets its page with no edit here), each rendered by
# `skillsync help --man [<command>]` from the same text `--help` prints. Pages that did not
# change are not touched; pages of commands that left the table are removed.
#     cmake -DSKILLSYNC=<binary> -DOUT=<dir> -P cmake/man.cmake
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND "${SKILLSYNC}" help --commands OUTPUT_VARIABLE names
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "skillsync help --commands failed")
endif()
string(REPLACE "\n" ";" names "${names}")
set(pages "")
function(ss_page page)
  execute_process(COMMAND "${SKILLSYNC}" help --man ${ARGN} OUTPUT_VARIABLE text
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "skillsync help --man ${ARGN} failed")
  endif()
  set(old "")
  if(EXISTS "${OUT}/${page}")
    file(READ "${OUT}/${page}" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${OUT}/${page}" "${text}")
  endif()
endfunction()
ss_page(skillsync.1)
list(APPEND pages "${OUT}/skillsync.1")
foreach(name ${names})
  if(name STREQUAL "")
    continue()
  endif()
  ss_page(skillsync-${name}.1 ${name})
  list(APPEND pages "${OUT}/skillsync-${name}.1")
endforeach()
file(GLOB existing "${OUT}/*.1")
foreach(f ${existing})
  if(NOT f IN_LIST pages)
    file(REMOVE "${f}")
  endif()
endforeach()
