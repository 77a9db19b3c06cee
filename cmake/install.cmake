# What `cmake --install` puts where, and the Debian package CPack makes from it
# (docs/INSTALL.md):
#   bin/skillsync
#   share/man/man1/skillsync.1, skillsync-<command>.1   made at build time by cmake/man.cmake
#                                                       from the commands' --help texts
#   share/bash-completion/completions/skillsync         dist/completions/skillsync.bash
#   share/zsh/vendor-completions/_skillsync             dist/completions/_skillsync
#   lib/systemd/user/skillsync-pull@.service, .timer    dist/systemd/ (docs/SCHEDULE.md)
include(GNUInstallDirs)

# The fuzz build (instrumented, never installed) makes no man pages.
if(SS_FUZZ)
  set(ss_man_default OFF)
else()
  set(ss_man_default ON)
endif()
option(SS_MAN "Make the man pages at build time (runs the built binary)" ${ss_man_default})
set(SS_ZSH_COMPLETION_DIR "${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions" CACHE STRING
    "Where the zsh completion goes (relative to the prefix, or absolute)")

if(SS_MAN)
  add_custom_target(ss_man ALL
                    COMMAND ${CMAKE_COMMAND} -DSKILLSYNC=$<TARGET_FILE:skillsync>
                            -DOUT=${CMAKE_BINARY_DIR}/man -P ${PROJECT_SOURCE_DIR}/cmake/man.cmake
                    DEPENDS skillsync COMMENT "Making the man pages" VERBATIM)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          FILES_MATCHING PATTERN "*.1")
endif()

install(TARGETS skillsync RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/dist/completions/skillsync.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME skillsync)
install(FILES ${PROJECT_SOURCE_DIR}/dist/completions/_skillsync
        DESTINATION ${SS_ZSH_COMPLETION_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/dist/systemd/skillsync-pull@.service
              ${PROJECT_SOURCE_DIR}/dist/systemd/skillsync-pull@.timer
        DESTINATION lib/systemd/user)

# cpack -G DEB: the runtime dependencies come from dpkg-shlibdeps over the binary (dpkg-dev),
# and libcurl's and ICU's packages besides: the binary loads libcurl.so.4 when it first talks
# to the network (sync/net/curl.c) and ICU when it first counts graphemes
# (core/util/grapheme.c), so the binary's own list names neither.
set(CPACK_PACKAGE_NAME skillsync)
set(CPACK_PACKAGE_VENDOR skillsync)
set(CPACK_PACKAGE_CONTACT "skillsync maintainers <skillsync@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "keep a memory space's agent skills in a local git repository")
set(CPACK_PACKAGE_DESCRIPTION
    "skillsync clones the agent skills of an ATProto memory space into a git working tree, \
commits and pushes edits as records, and pulls the other members' changes on a schedule.")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
string(REGEX MATCH "^[0-9]+" ss_icu_major "${ICU_VERSION}")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4 (>= ${LIBCURL_VERSION}), libicu${ss_icu_major}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "git, man-db, bash-completion")
include(CPack)
