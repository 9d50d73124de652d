# `cpack -G DEB` (scripts/package): one Debian package, `provisioner`, of what cmake/install.cmake
# lays out, with prefix /usr (so the config lands in /etc/provisioner). Library dependencies
# come from dpkg-shlibdeps on the installed binaries, not from a hand-kept list.
set(CPACK_PACKAGE_NAME provisioner)
set(CPACK_PACKAGE_VENDOR "gpu-provisioner")
set(CPACK_PACKAGE_CONTACT "GPU fleet provisioning <provisioner@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Zero-touch provisioning and lifecycle service for GPU fleets")
set(CPACK_PACKAGE_DESCRIPTION
  "Discovers BMCs, claims, inspects and configures GPU servers over Redfish, network-boots\n\
signed images, runs burn-in through its in-band agent, and keeps firmware, health and\n\
decommissioning under durable workflows on PostgreSQL.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Not libraries: what the service runs (adduser in postinst, the private PostgreSQL's server).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "postgresql-15")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus")
configure_file(${CMAKE_SOURCE_DIR}/packaging/debian/conffiles.in
  ${CMAKE_BINARY_DIR}/packaging/debian/conffiles @ONLY)
foreach(script postinst prerm postrm)
  configure_file(${CMAKE_SOURCE_DIR}/packaging/debian/${script}
    ${CMAKE_BINARY_DIR}/packaging/debian/${script} COPYONLY FILE_PERMISSIONS OWNER_READ
    OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${CMAKE_BINARY_DIR}/packaging/debian/conffiles ${CMAKE_BINARY_DIR}/packaging/debian/postinst
  ${CMAKE_BINARY_DIR}/packaging/debian/prerm ${CMAKE_BINARY_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_GENERATOR DEB)
include(CPack)
