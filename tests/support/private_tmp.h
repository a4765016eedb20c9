#pragma once
// Tests that put a JVM in a mount namespace of its own with a private /tmp (as a container has) must still
// find the build tree, which may itself live under /tmp (CI clones anywhere). The shell text below, run by
// `sh -c` inside the new mount namespace, mounts a fresh tmpfs on /tmp and binds the build tree back at its
// own path; the caller appends what runs next ("exec \"$@\"", ...).
#include <string>

#include "test_config.h"

namespace jfrbpf::test {

inline std::string privateTmpMounts() {
  const std::string build = kBinaryDir;
  const std::string mountTmp = "mount -t tmpfs -o mode=1777 jfrbpf-test /tmp && ";
  if (build.rfind("/tmp/", 0) != 0) return mountTmp;
  // A path with a quote in it would break the quoting: such a build tree simply stays hidden.
  if (build.find('\'') != std::string::npos) return mountTmp;
  const std::string quoted = "'" + build + "'";
  return "keep=$(mktemp -d /run/jfrbpf-keep.XXXXXX) && mount --bind " + quoted + " \"$keep\" && " + mountTmp +
         "mkdir -p " + quoted + " && mount --bind \"$keep\" " + quoted + " && umount \"$keep\" && rmdir \"$keep\" && ";
}

}  // namespace jfrbpf::test
