#include "jvmsupport/agent/timing_table.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <new>

namespace jfrbpf::agent {

namespace {

constexpr size_t kPage = 4096;

// <linux/memfd.h> and <fcntl.h>'s sealing constants, and memfd_create by system call: the agent runs in JVMs
// whose glibc may predate them (the wrapper came in 2.27). MFD_NOEXEC_SEAL exists since Linux 6.3.
constexpr unsigned kMfdCloexec = 0x1, kMfdAllowSealing = 0x2, kMfdNoexecSeal = 0x8;
constexpr int kAddSeals = 1024 + 9;
constexpr int kSealSeal = 0x1, kSealShrink = 0x2, kSealGrow = 0x4;

int createMemfd() {
  const unsigned flags = kMfdCloexec | kMfdAllowSealing;
  int fd = static_cast<int>(syscall(SYS_memfd_create, "jfrbpf-method-timing", flags | kMfdNoexecSeal));
  if (fd < 0) fd = static_cast<int>(syscall(SYS_memfd_create, "jfrbpf-method-timing", flags));
  return fd;
}

}  // namespace

protocol::TimingTableHeader* TimingTable::prepare(uint32_t slotBase, uint32_t slotCount, const char*& error) {
  const size_t needed = (protocol::timingTableBytes(slotCount) + kPage - 1) / kPage * kPage;
  if (header_ == nullptr || bytes_ < needed) {
    int fd = createMemfd();
    if (fd < 0) {
      error = "the agent could not create shared memory for method timing (memfd_create failed)";
      return nullptr;
    }
    void* mapped = MAP_FAILED;
    // Sealed at its size: the loader maps this memory too, and only a file that can never shrink cannot kill
    // it with SIGBUS (it refuses a table that is not sealed so).
    if (ftruncate(fd, static_cast<off_t>(needed)) == 0 && fcntl(fd, kAddSeals, kSealShrink | kSealGrow | kSealSeal) == 0) {
      mapped = mmap(nullptr, needed, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    close(fd);  // the mapping keeps the memory
    if (mapped == MAP_FAILED) {
      error = "the agent could not map shared memory for method timing";
      return nullptr;
    }
    header_ = static_cast<protocol::TimingTableHeader*>(mapped);
    bytes_ = needed;
  } else if (madvise(header_, bytes_, MADV_REMOVE) != 0) {
    // MADV_REMOVE frees the pages (reading them again gives zeros): the stripes are mostly untouched, and a
    // memset would make all of them resident in the target.
    std::memset(static_cast<void*>(header_), 0, bytes_);
  }
  auto* header = new (header_) protocol::TimingTableHeader();
  header->slotBase = slotBase;
  header->slotCount = slotCount;
  return header;
}

}  // namespace jfrbpf::agent
