#pragma once
// Ownership of memory that JVMTI allocates for its results (names, arrays): Deallocate()d on scope exit.
#include <jvmti.h>

namespace jfrbpf::agent {

template <typename T>
class JvmtiArray {
 public:
  explicit JvmtiArray(jvmtiEnv* jvmti) : jvmti_(jvmti) {}
  JvmtiArray(const JvmtiArray&) = delete;
  JvmtiArray& operator=(const JvmtiArray&) = delete;
  ~JvmtiArray() {
    if (ptr_ != nullptr) jvmti_->Deallocate(reinterpret_cast<unsigned char*>(ptr_));
  }

  T** out() { return &ptr_; }
  T* get() const { return ptr_; }

 private:
  jvmtiEnv* jvmti_;
  T* ptr_ = nullptr;
};

using JvmtiString = JvmtiArray<char>;

}  // namespace jfrbpf::agent
