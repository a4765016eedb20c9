#include "formats/convert/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <streambuf>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"

namespace jfrbpf::convert {
namespace {

// A stream buffer on a file descriptor that remembers the first write error.
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd), buffer_(1 << 16) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  ~FdBuffer() override { sync(); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    const char* data = pbase();
    size_t left = static_cast<size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      ssize_t n = ::write(fd_, data, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        break;
      }
      data += n;
      left -= static_cast<size_t>(n);
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ == 0 ? 0 : -1;
  }

 private:
  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

}  // namespace

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path == "-") {
    write(std::cout);
    std::cout.flush();
    if (!std::cout) throw Error("cannot write to standard output");
    return;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error("cannot write " + path + ": it is a directory (give a file name with -o)", ErrorKind::Usage);
  }
  std::string temporary = path + ".XXXXXX";
  UniqueFd fd(::mkostemp(temporary.data(), O_CLOEXEC));
  if (!fd) throw systemError("cannot create " + path + " (check the directory exists and is writable)");
  // mkstemp creates 0600; the result should be readable like any file the user creates.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd.get(), 0666 & ~mask);
  try {
    int error = 0;
    {
      FdBuffer buffer(fd.get());
      std::ostream out(&buffer);
      write(out);
      out.flush();
      error = buffer.error();
    }
    if (error != 0) throw systemError("cannot write " + path, error);
    if (::fsync(fd.get()) != 0) throw systemError("cannot write " + path);
    if (::rename(temporary.c_str(), path.c_str()) != 0) throw systemError("cannot create " + path);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
}

}  // namespace jfrbpf::convert
