// Which pod a container belongs to, from the files the kubelet mounts into it, read inside its root only.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/unique_fd.h"
#include "tests/support/scratch_tree.h"
#include "userspace/discovery/kubernetes_pod.h"

namespace jfrbpf::discovery {
namespace {

class KubernetesPodTest : public test::ScratchTree {
 protected:
  std::optional<KubernetesPod> pod() {
    UniqueFd root(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    return kubernetesPodIn(root.get());
  }
  static constexpr const char* kNamespaceFile = "run/secrets/kubernetes.io/serviceaccount/namespace";
};

TEST_F(KubernetesPodTest, APodIsNamedByItsHostnameAndItsServiceAccountsNamespace) {
  write("etc/hostname", "checkout-7d9f8b6c5-x2k4q\n");
  write(kNamespaceFile, "shop");
  std::filesystem::create_directories(root_ + "/var");
  std::filesystem::create_directory_symlink("/run", root_ + "/var/run");  // as images have it: inside the root
  ASSERT_TRUE(pod().has_value());
  EXPECT_EQ(pod()->name, "checkout-7d9f8b6c5-x2k4q");
  EXPECT_EQ(pod()->namespace_, "shop");
}

TEST_F(KubernetesPodTest, NoServiceAccountNoPod) {
  write("etc/hostname", "checkout-7d9f8b6c5-x2k4q\n");
  EXPECT_FALSE(pod().has_value());
}

TEST_F(KubernetesPodTest, WhatIsNotAKubernetesNameIsNotTaken) {
  write("etc/hostname", "Checkout\x1b[2J\n");
  write(std::string("var/") + kNamespaceFile, "shop");
  EXPECT_FALSE(pod().has_value());
}

TEST_F(KubernetesPodTest, ALinkOutOfTheRootIsNotFollowed) {
  const std::string outside = root_ + "-outside";
  std::filesystem::create_directories(outside);
  { std::ofstream(outside + "/namespace") << "kube-system"; }
  write("etc/hostname", "pod-a\n");
  std::filesystem::create_directories(root_ + "/var/run/secrets/kubernetes.io");
  std::filesystem::create_directory_symlink(outside, root_ + "/var/run/secrets/kubernetes.io/serviceaccount");
  // Inside the root, the absolute link resolves to <root>/<outside>, which does not exist.
  EXPECT_FALSE(pod().has_value());
  std::filesystem::remove_all(outside);
}

}  // namespace
}  // namespace jfrbpf::discovery
