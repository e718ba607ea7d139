# Install rules and the Debian package (`make package`: CPack's DEB generator). The package holds
# the executable, a man page generated from `ckptsim help`, the scenarios and the docs; its
# Depends come from dpkg-shlibdeps on the executable, so they follow what it links.
include(GNUInstallDirs)

# `make install` and cpack install only what `make package` built (ckptsim and its man page),
# instead of first building every test and benchmark.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(CKPTSIM_MAN_PAGE ${CMAKE_BINARY_DIR}/man/ckptsim.1.gz)
add_custom_command(OUTPUT ${CKPTSIM_MAN_PAGE}
  COMMAND ${CMAKE_COMMAND} -DCKPTSIM=$<TARGET_FILE:ckptsim> -DOUT=${CKPTSIM_MAN_PAGE}
    -P ${PROJECT_SOURCE_DIR}/cmake/ckptsim_man.cmake
  DEPENDS ckptsim ${PROJECT_SOURCE_DIR}/cmake/ckptsim_man.cmake
  COMMENT "Generating the man page from ckptsim help")
add_custom_target(ckptsim_man DEPENDS ${CKPTSIM_MAN_PAGE})

install(TARGETS ckptsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CKPTSIM_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/ckptsim/scenarios)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ckptsim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "ckptsim maintainers <maintainers@users.noreply.a-seed-331f8f1c.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "discrete-event simulator of Apache Flink checkpointing")
# CPack takes the summary above as the synopsis line and indents these lines itself.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "ckptsim replays a scenario (a job, its Flink configuration, a timeline of what
happens to it) in simulated time and tells what Flink 1.17-2.0 would do: which
checkpoints complete or expire, failovers, restarts, restores. It writes the
JobManager log, the REST API's checkpoint JSON and a summary, and runs sweeps
that can be sharded over Slurm job arrays or Kubernetes Indexed Jobs.

Example scenarios are in /usr/share/ckptsim/scenarios.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
set(CPACK_STRIP_FILES ON)
include(CPack)
