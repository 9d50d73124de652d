# `cmake --install`: the FHS layout under CMAKE_INSTALL_PREFIX (docs/install.md). Programs find
# their data relative to themselves (PROVISIONER_DATA_FROM_BIN, common/data_paths.hpp), so the
# same tree works under /usr, /usr/local, /opt/provisioner or a DESTDIR.
#   bin/                              provisioner, provisionerctl, provisioner-agent, bmc-sim
#   share/provisioner/migrations/     the numbered SQL migrations
#   share/provisioner/openapi.yaml    served at /api/v1/openapi.yaml
#   share/provisioner/simulator/profiles/   bmc-sim's BMC profiles
#   share/provisioner/dhcp/           DHCP lease hooks (docs/discovery.md)
#   lib/systemd/system/               provisioner.service, provisioner-agent-monitor.service
#   SYSCONFDIR/provisioner/provisioner.conf  (/etc when the prefix is /usr)
#   share/doc/provisioner/            install.md, operations.md, configuration.md
foreach(program provisioner provisionerctl provisioner-agent bmc-sim)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT provisioner)
  endif()
endforeach()

install(DIRECTORY ${CMAKE_SOURCE_DIR}/migrations/ DESTINATION ${PROVISIONER_DATA_SUBDIR}/migrations
  COMPONENT provisioner FILES_MATCHING PATTERN "*.sql")
install(FILES ${CMAKE_SOURCE_DIR}/docs/openapi.yaml DESTINATION ${PROVISIONER_DATA_SUBDIR}
  COMPONENT provisioner)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/simulator/profiles/
  DESTINATION ${PROVISIONER_DATA_SUBDIR}/simulator/profiles COMPONENT provisioner)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/scripts/dhcp/dnsmasq-lease-hook
  ${CMAKE_SOURCE_DIR}/scripts/dhcp/kea-lease-hook ${CMAKE_SOURCE_DIR}/scripts/dhcp/post-lease
  DESTINATION ${PROVISIONER_DATA_SUBDIR}/dhcp COMPONENT provisioner)

foreach(unit provisioner.service provisioner-agent-monitor.service)
  configure_file(${CMAKE_SOURCE_DIR}/packaging/systemd/${unit}.in
    ${CMAKE_BINARY_DIR}/packaging/${unit} @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/packaging/${unit}
    DESTINATION lib/systemd/system COMPONENT provisioner)
endforeach()
install(FILES ${CMAKE_SOURCE_DIR}/packaging/provisioner.conf
  DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/provisioner COMPONENT provisioner)
install(FILES ${CMAKE_SOURCE_DIR}/docs/install.md ${CMAKE_SOURCE_DIR}/docs/operations.md
  ${CMAKE_SOURCE_DIR}/docs/configuration.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT provisioner)
