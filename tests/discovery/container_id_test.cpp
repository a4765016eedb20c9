// Container ids from /proc/PID/cgroup as the runtimes write them (samples in the formats of docker,
// containerd, CRI-O and podman with the systemd and cgroupfs drivers, cgroup v1 and v2).
#include <gtest/gtest.h>

#include <string>

#include "userspace/discovery/container_id.h"

namespace jfrbpf::discovery {
namespace {

const std::string kId = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899";
const std::string kOtherId = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const std::string kPodUid = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";
const std::string kPodUidSystemd = "0f1e2d3c_4b5a_6978_8a9b_0c1d2e3f4a5b";

TEST(DiscoveryContainerId, DockerSystemdDriverCgroupV2) {
  ContainerInfo info = parseContainerInfo("0::/system.slice/docker-" + kId + ".scope\n");
  EXPECT_EQ(info.id, kId);
  EXPECT_EQ(info.runtime, "docker");
  EXPECT_EQ(info.podUid, "");
  EXPECT_EQ(info.shortId(), kId.substr(0, 12));
}

TEST(DiscoveryContainerId, DockerCgroupfsDriverCgroupV1MultiLine) {
  std::string text = "12:pids:/docker/" + kId + "\n11:memory:/docker/" + kId + "\n10:cpu,cpuacct:/docker/" + kId +
                     "\n1:name=systemd:/docker/" + kId + "\n0::/\n";
  ContainerInfo info = parseContainerInfo(text);
  EXPECT_EQ(info.id, kId);
  EXPECT_EQ(info.runtime, "docker");
}

TEST(DiscoveryContainerId, KubernetesContainerdSystemdDriver) {
  ContainerInfo info = parseContainerInfo("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" +
                                          kPodUidSystemd + ".slice/cri-containerd-" + kId + ".scope\n");
  EXPECT_EQ(info.id, kId);
  EXPECT_EQ(info.runtime, "containerd");
  EXPECT_EQ(info.podUid, kPodUid);
}

TEST(DiscoveryContainerId, KubernetesCgroupfsDriverV1) {
  std::string text = "11:memory:/kubepods/besteffort/pod" + kPodUid + "/" + kId + "\n2:cpu:/kubepods/besteffort/pod" +
                     kPodUid + "/" + kId + "\n";
  ContainerInfo info = parseContainerInfo(text);
  EXPECT_EQ(info.id, kId);
  EXPECT_EQ(info.runtime, "kubernetes");
  EXPECT_EQ(info.podUid, kPodUid);
}

TEST(DiscoveryContainerId, KubernetesGuaranteedPodCriO) {
  ContainerInfo info =
      parseContainerInfo("0::/kubepods.slice/kubepods-pod" + kPodUidSystemd + ".slice/crio-" + kId + ".scope\n");
  EXPECT_EQ(info.id, kId);
  EXPECT_EQ(info.runtime, "cri-o");
  EXPECT_EQ(info.podUid, kPodUid);
}

TEST(DiscoveryContainerId, CriOMonitorIsNotTheContainer) {
  ContainerInfo info = parseContainerInfo("0::/kubepods.slice/kubepods-pod" + kPodUidSystemd + ".slice/crio-conmon-" +
                                          kId + ".scope\n");
  EXPECT_FALSE(info.known());
  EXPECT_EQ(info.shortId(), "-");
}

TEST(DiscoveryContainerId, PodmanRootfulAndRootless) {
  ContainerInfo rootful = parseContainerInfo("0::/machine.slice/libpod-" + kId + ".scope/container\n");
  EXPECT_EQ(rootful.id, kId);
  EXPECT_EQ(rootful.runtime, "podman");
  ContainerInfo rootless = parseContainerInfo(
      "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" + kOtherId + ".scope/container\n");
  EXPECT_EQ(rootless.id, kOtherId);
  EXPECT_EQ(rootless.runtime, "podman");
  ContainerInfo cgroupfs = parseContainerInfo("0::/libpod_parent/libpod-" + kId + "\n");
  EXPECT_EQ(cgroupfs.id, kId);
  EXPECT_EQ(cgroupfs.runtime, "podman");
}

TEST(DiscoveryContainerId, ReaderInAnotherCgroupNamespace) {
  // From inside a pod (its own cgroup namespace) other pods' paths start with "/..".
  ContainerInfo info = parseContainerInfo("0::/../../kubepods-besteffort-pod" + kPodUidSystemd +
                                          ".slice/cri-containerd-" + kId + ".scope\n");
  EXPECT_EQ(info.id, kId);
  EXPECT_EQ(info.podUid, kPodUid);
}

TEST(DiscoveryContainerId, NestedContainersReportTheInnermost) {
  ContainerInfo info = parseContainerInfo("0::/docker/" + kOtherId + "/docker/" + kId + "\n");
  EXPECT_EQ(info.id, kId);
  EXPECT_EQ(info.runtime, "docker");
  ContainerInfo withSystemdInside =
      parseContainerInfo("0::/system.slice/docker-" + kId + ".scope/system.slice/nginx.service\n");
  EXPECT_EQ(withSystemdInside.id, kId);
}

TEST(DiscoveryContainerId, UnknownParentsStillGiveTheId) {
  ContainerInfo info = parseContainerInfo("9:memory:/ecs/0123456789abcdef0123456789abcdef/" + kId + "\n");
  EXPECT_EQ(info.id, kId);
  EXPECT_EQ(info.runtime, "unknown");
}

TEST(DiscoveryContainerId, SystemdSlicesAndHostProcessesAreNoContainer) {
  EXPECT_FALSE(parseContainerInfo("0::/user.slice/user-1000.slice/session-2.scope\n").known());
  EXPECT_FALSE(parseContainerInfo("0::/system.slice/docker.service\n").known());
  EXPECT_FALSE(parseContainerInfo("0::/system.slice/containerd.service\n").known());
  EXPECT_FALSE(parseContainerInfo("0::/init.scope\n").known());
  EXPECT_FALSE(parseContainerInfo("0::/\n").known());
  // A 32-digit id is some supervisor's own naming, not a container runtime's.
  EXPECT_FALSE(parseContainerInfo("9:name=systemd:/\n4:memory:/process_api/94019ea1c6af943d9ba77cef37838b7c\n0::/\n")
                   .known());
}

TEST(DiscoveryContainerId, MalformedTextIsNoContainer) {
  EXPECT_FALSE(parseContainerInfo("").known());
  EXPECT_FALSE(parseContainerInfo("garbage without colons\n\n\n").known());
  EXPECT_FALSE(parseContainerInfo("0::/docker/" + kId.substr(1) + "\n").known());       // 63 digits
  EXPECT_FALSE(parseContainerInfo("0::/docker/" + kId + "0\n").known());                // 65 digits
  std::string upper = kId;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_FALSE(parseContainerInfo("0::/docker/" + upper + "\n").known());
  EXPECT_FALSE(parseContainerInfo("0::/system.slice/docker-" + kId + ".scopex\n").known());
  EXPECT_FALSE(parseContainerInfo(std::string("0::/docker/\0", 12) + kId).known());
}

TEST(DiscoveryContainerId, PodUidMustBeAUuid) {
  ContainerInfo info = parseContainerInfo("0::/kubepods/burstable/podnot-a-uid/" + kId + "\n");
  EXPECT_EQ(info.id, kId);
  EXPECT_EQ(info.podUid, "");
}

}  // namespace
}  // namespace jfrbpf::discovery
