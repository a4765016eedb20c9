#include "userspace/record/sampling/bpf_sampler.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>

#include "base/error.h"
#include "base/startup_marks.h"
#include "base/unique_fd.h"
#include "sampler.skel.h"

namespace jfrbpf::record {
namespace {

// Rows [first, first + count) of the unwind_rows array, mapped while they are written. The kernel maps every
// page of a BPF array in at mmap: the whole array (32 MiB by default) kept mapped counted in the loader's RSS,
// and against --memory-limit, all the recording long.
class RowWindow {
 public:
  RowWindow(int mapFd, uint32_t first, size_t count) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t begin = static_cast<size_t>(first) * sizeof(jfrbpf_unwind_row);
    const size_t offset = begin / page * page;
    bytes_ = (begin + count * sizeof(jfrbpf_unwind_row) - offset + page - 1) / page * page;
    void* mapped = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, mapFd, static_cast<off_t>(offset));
    if (mapped == MAP_FAILED) throw systemError("mapping rows of the BPF unwind row array");
    base_ = static_cast<uint8_t*>(mapped);
    rows_ = reinterpret_cast<jfrbpf_unwind_row*>(base_ + (begin - offset));
  }
  ~RowWindow() { munmap(base_, bytes_); }
  RowWindow(const RowWindow&) = delete;
  RowWindow& operator=(const RowWindow&) = delete;

  jfrbpf_unwind_row* rows() const { return rows_; }

 private:
  uint8_t* base_ = nullptr;
  size_t bytes_ = 0;
  jfrbpf_unwind_row* rows_ = nullptr;
};

std::string loadFailureHint(int err) {
  if (err == EPERM || err == EACCES) {
    return "loading the BPF sampler was refused: run as root or grant CAP_BPF and CAP_PERFMON";
  }
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
    return "loading the BPF sampler failed: this kernel has no BTF (/sys/kernel/btf/vmlinux); "
           "jfrbpf needs a kernel built with CONFIG_DEBUG_INFO_BTF=y";
  }
  return std::string("loading the BPF sampler failed: ") + std::strerror(err);
}

// The BPF side checks a ring's fill (to wake the consumer) only every n-th record of a CPU, n a power of two
// up to 16: the records all CPUs may add between checks must stay within an eighth of the smallest ring, so
// that a quarter-full ring still wakes the consumer long before it is full.
uint64_t ringbufCheckMask(uint32_t smallestRingBytes) {
  long cpus = std::max(1L, sysconf(_SC_NPROCESSORS_CONF));
  uint64_t records = smallestRingBytes / 8 / (sizeof(jfrbpf_sample_record) * static_cast<uint64_t>(cpus));
  uint64_t every = 1;
  while (every * 2 <= std::min<uint64_t>(records, 16)) every *= 2;
  return every - 1;
}

// How far a thread's samples may stand for more CPU time than the kernel has accounted to it yet (see
// bpf/thread_cpu_time.bpf.h) before it gets none: the kernel brings a running thread's figure up to date at
// every scheduler tick, so one tick (CONFIG_HZ of the running kernel; 10 ms, the lowest rate, when unknown).
uint64_t schedulerTickNs() {
  constexpr uint64_t kSlowestTickNs = 10'000'000;
  utsname host{};
  if (uname(&host) != 0) return kSlowestTickNs;
  std::ifstream config(std::string("/boot/config-") + host.release);
  for (std::string line; std::getline(config, line);) {
    if (!line.starts_with("CONFIG_HZ=")) continue;
    const uint64_t hz = std::strtoull(line.c_str() + 10, nullptr, 10);
    return hz >= 100 && hz <= 1000 ? 1'000'000'000 / hz : kSlowestTickNs;
  }
  return kSlowestTickNs;
}

// Whether this kernel's BPF programs of every type may use hash maps that allocate their elements as they are
// added (6.1+; before, perf_event and tracing programs could only use preallocated ones).
bool allocatesOnDemand() {
  utsname host{};
  unsigned major = 0, minor = 0;
  if (uname(&host) != 0 || std::sscanf(host.release, "%u.%u", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 1);
}

// The large hash maps, preallocated at their full size otherwise: kernel memory for 65,536 threads that few
// recordings see, and 5-10 ms of the start-up to fill it. All but thread_losses are filled by the loader only; a
// thread's first loss that finds no element free (its CPU's cache of them empty until refilled) is counted as
// "loss table full".
void allocateOnDemand(sampler* skeleton) {
  if (!allocatesOnDemand()) return;
  for (bpf_map* map : {skeleton->maps.java_threads, skeleton->maps.thread_losses, skeleton->maps.unwind_processes,
                       skeleton->maps.unwind_files, skeleton->maps.hotspot_jvms, skeleton->maps.targets}) {
    bpf_map__set_map_flags(map, bpf_map__map_flags(map) | BPF_F_NO_PREALLOC);
  }
}

// The off-CPU picking draws a point in [0, interval) from 32 random bits times the interval (bpf/off_cpu.bpf.h).
constexpr uint64_t kMaxOffCpuIntervalNs = (1ull << 32) - 1;

// Where HotSpot's code heap frees blocks: every nmethod and stub it frees, and the unused tail of a new blob.
// Functions of their own in libjvm's symbol table from JDK 17 to 25 (their one helper, add_to_freelist, is
// inlined into both).
constexpr const char* kCodeHeapFreeFunctions[] = {"_ZN8CodeHeap10deallocateEPv", "_ZN8CodeHeap15deallocate_tailEPvm"};

// The programs loaded after the others (BpfSampler::startLateLoad).
constexpr const char* kTraceProgram = "on_method_traced";
constexpr const char* kOffCpuFlushProgram = "flush_off_cpu";
constexpr const char* kLatePrograms[] = {kTraceProgram, kOffCpuFlushProgram};
constexpr int kLateLoadNice = 10;

// Each of the first `keys` values of a per-CPU array of __u64, summed over CPUs (a value that cannot be read
// counts as 0).
std::vector<uint64_t> sumPerCpu(const bpf_map* map, uint32_t keys) {
  std::vector<uint64_t> totals(keys);
  int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return totals;
  std::vector<uint64_t> perCpu(static_cast<size_t>(cpus));
  for (uint32_t key = 0; key < keys; ++key) {
    if (bpf_map__lookup_elem(map, &key, sizeof(key), perCpu.data(), perCpu.size() * sizeof(uint64_t), 0) != 0) {
      continue;
    }
    for (uint64_t v : perCpu) totals[key] += v;
  }
  return totals;
}

}  // namespace

BpfSampler::BpfSampler(const SamplerConfig& config) {
  startupMark("bpf open");
  skel_ = sampler::open();
  if (!skel_) throw Error(loadFailureHint(errno), ErrorKind::Environment);
  skel_->rodata->user_stack_depth = config.userStackDepth;
  skel_->rodata->sampling_period_ns = std::max<uint64_t>(1, config.samplingPeriodNs);
  skel_->rodata->cpu_time_lead_ns = schedulerTickNs();
  skel_->rodata->per_cpu_clocks = config.perCpuClocks;
  skel_->rodata->measure_sample_cost = config.measureSampleCost;
  measureSampleCost_ = config.measureSampleCost;
  bpf_map__set_max_entries(skel_->maps.samples, config.ringBufferBytes);
  bpf_map__set_max_entries(skel_->maps.unwind_rows, std::max<uint32_t>(1, config.unwindRows));
  methodTraces_ = config.methodTraces;
  skel_->rodata->ringbuf_check_mask = ringbufCheckMask(
      methodTraces_ ? std::min(config.ringBufferBytes, config.traceRingBufferBytes) : config.ringBufferBytes);
  if (methodTraces_) bpf_map__set_max_entries(skel_->maps.traces, config.traceRingBufferBytes);
  offCpu_ = config.offCpu;
  skel_->rodata->off_cpu_interval_ns = std::min(config.offCpuIntervalNs, kMaxOffCpuIntervalNs);
  for (bpf_program* program :
       {skel_->progs.on_sched_switch, skel_->progs.on_rseq_update, skel_->progs.prime_off_cpu}) {
    bpf_program__set_autoload(program, offCpu_);
  }
  for (const char* name : kLatePrograms) {
    bpf_program__set_autoload(bpf_object__find_program_by_name(skel_->obj, name), false);
  }
  bpf_program__set_autoload(skel_->progs.on_thread_exit, config.perCpuClocks);
  allocateOnDemand(skel_);
  int err = sampler::load(skel_);
  startupMark("bpf loaded");
  if (err) {
    sampler::destroy(skel_);
    skel_ = nullptr;
    throw Error(loadFailureHint(-err), ErrorKind::Environment);
  }
  rowCapacity_ = std::max<uint32_t>(1, config.unwindRows);
  try {
    RowWindow probe(bpf_map__fd(skel_->maps.unwind_rows), 0, 1);  // mappable, as writeUnwindRows needs
  } catch (const Error& e) {
    sampler::destroy(skel_);
    skel_ = nullptr;
    throw Error(std::string("mapping the BPF unwind row array failed: ") + e.what(), ErrorKind::Environment);
  }
  // Before any process is a target: a thread whose leaving the off-CPU hooks did not see has been off CPU
  // since its process became one (bpf/off_cpu.bpf.h).
  if (offCpu_) {
    const char* needs =
        "--off-cpu needs the sched_switch and rseq_update tracepoints with BTF; record without --off-cpu";
    attachSchedulerHook(skel_->progs.on_sched_switch, needs);
    attachSchedulerHook(skel_->progs.on_rseq_update, needs);
  }
  if (config.perCpuClocks) {
    attachSchedulerHook(skel_->progs.on_thread_exit,
                        "--sampler cpu needs the sched_process_exit tracepoint with BTF; record with --sampler thread");
  }
  startupMark("bpf hooks attached");
  startLateLoad();
}

void BpfSampler::startLateLoad() {
  if (!methodTraces_ && !offCpu_) return;
  const bool traces = methodTraces_;
  const bool offCpu = offCpu_;
  const sampler* loaded = skel_;
  late_ = std::async(std::launch::async, [loaded, traces, offCpu] {
            // Behind what the first samples wait for (the agent's tables, unwind tables, perf events), which
            // runs meanwhile: the verifier works in this thread, at this thread's priority.
            setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kLateLoadNice);
            Skeleton late(sampler::open());
            if (!late) throw Error(loadFailureHint(errno), ErrorKind::Environment);
            bpf_program* program = nullptr;
            bpf_object__for_each_program(program, late->obj) {
              const std::string_view name = bpf_program__name(program);
              const bool wanted = (traces && name == kTraceProgram) || (offCpu && name == kOffCpuFlushProgram);
              bpf_program__set_autoload(program, wanted);
            }
            // Every map is the loaded object's: the late programs see the same targets, tables and rings, and
            // the global data (already frozen) keeps the values the first programs were verified with.
            bpf_map* map = nullptr;
            bpf_object__for_each_map(map, late->obj) {
              const bpf_map* shared = bpf_object__find_map_by_name(loaded->obj, bpf_map__name(map));
              if (!shared || bpf_map__reuse_fd(map, bpf_map__fd(shared)) != 0) {
                throw Error(std::string("loading the BPF trace and off-CPU programs failed: cannot share map ") +
                                bpf_map__name(map),
                            ErrorKind::Environment);
              }
            }
            if (int err = sampler::load(late.get())) throw Error(loadFailureHint(-err), ErrorKind::Environment);
            startupMark("late bpf loaded");
            return late;
          }).share();
}

bpf_program* BpfSampler::lateProgram(const char* name) const {
  return bpf_object__find_program_by_name(late_.get()->obj, name);
}

void BpfSampler::attachSchedulerHook(bpf_program* program, const char* needs) {
  Link link(bpf_program__attach(program));
  if (!link) {
    int err = errno;
    schedulerLinks_.clear();
    sampler::destroy(skel_);
    skel_ = nullptr;
    throw Error(std::string("attaching the scheduler hook ") + bpf_program__name(program) + " failed: " +
                    std::strerror(err) + " (" + needs + ")",
                ErrorKind::Environment);
  }
  schedulerLinks_.push_back(std::move(link));
}

BpfSampler::~BpfSampler() {
  detach();
  detachTraceProbes();
  codeFreeProbes_.clear();
  if (late_.valid()) late_.wait();  // a load under way reads the first object's maps
  late_ = {};
  sampler::destroy(skel_);
}

void BpfSampler::LinkDestroyer::operator()(bpf_link* link) const { bpf_link__destroy(link); }

void BpfSampler::SkeletonDestroyer::operator()(sampler* skeleton) const { sampler::destroy(skeleton); }


void BpfSampler::writeUnwindRows(uint32_t firstRow, std::span<const jfrbpf_unwind_row> rows) {
  if (firstRow > rowCapacity_ || rows.size() > rowCapacity_ - firstRow) {
    throw Error("unwind table rows " + std::to_string(firstRow) + "+" + std::to_string(rows.size()) +
                " fall outside the BPF row array of " + std::to_string(rowCapacity_));
  }
  if (rows.empty()) return;
  // Straight into the map's memory (a batched update copied them one by one: 25 ms for libjvm's rows). The walker
  // reads them only once setUnwindFile publishes their file, after this.
  RowWindow window(bpf_map__fd(skel_->maps.unwind_rows), firstRow, rows.size());
  std::memcpy(window.rows(), rows.data(), rows.size_bytes());
}

void BpfSampler::setUnwindFile(uint64_t fileId, const jfrbpf_unwind_file& file) {
  if (bpf_map__update_elem(skel_->maps.unwind_files, &fileId, sizeof(fileId), &file, sizeof(file), BPF_ANY) != 0) {
    throw systemError("publishing an unwind table to BPF");
  }
  unwindMapsChanged();
}

void BpfSampler::removeUnwindFile(uint64_t fileId) {
  bpf_map__delete_elem(skel_->maps.unwind_files, &fileId, sizeof(fileId), 0);
  unwindMapsChanged();
}

void BpfSampler::setUnwindProcess(uint32_t tgid, const jfrbpf_unwind_process& process) {
  if (bpf_map__update_elem(skel_->maps.unwind_processes, &tgid, sizeof(tgid), &process, sizeof(process), BPF_ANY) != 0) {
    throw systemError("publishing the mappings of process " + std::to_string(tgid) + " to BPF");
  }
  unwindMapsChanged();
}

void BpfSampler::unwindMapsChanged() {
  // After the change, never before: a walk that read the old epoch may already have cached rows of the new
  // maps, which is harmless; rows of the old maps must not outlive this.
  __atomic_fetch_add(&skel_->bss->unwind_epoch, 1, __ATOMIC_RELEASE);
}

void BpfSampler::addTarget(uint32_t tgid, const ThreadCpuTimes& start) {
  for (const auto& [tid, cpuNs] : start.byTid) {
    auto key = static_cast<uint32_t>(tid);
    auto runDelay = start.runDelayByTid.find(tid);
    jfrbpf_thread_cpu_seed seed{tgid, 0, cpuNs, runDelay == start.runDelayByTid.end() ? 0 : runDelay->second};
    bpf_map__update_elem(skel_->maps.thread_cpu_seeds, &key, sizeof(key), &seed, sizeof(seed), BPF_ANY);
  }
  if (offCpu_) primeOffCpu(tgid, start.atNs);
  jfrbpf_target value{};
  value.added_ns = start.atNs;
  if (bpf_map__update_elem(skel_->maps.targets, &tgid, sizeof(tgid), &value, sizeof(value), BPF_ANY) != 0) {
    throw systemError("adding process " + std::to_string(tgid) + " to the BPF target map");
  }
  processMapsChanged();
}

void BpfSampler::removeTarget(uint32_t tgid) {
  bpf_map__delete_elem(skel_->maps.targets, &tgid, sizeof(tgid), 0);
  processMapsChanged();
}

void BpfSampler::processMapsChanged() {
  // After the change, as for the unwind maps: what a sample looked up under the old epoch must not outlive it.
  __atomic_fetch_add(&skel_->bss->process_epoch, 1, __ATOMIC_RELEASE);
}

bpf_link* BpfSampler::attach(int perfEventFd) {
  bpf_link* link = bpf_program__attach_perf_event(skel_->progs.on_cpu_clock, perfEventFd);
  if (!link) throw systemError("attaching the BPF sampler to a sampling clock event");
  links_.push_back(link);
  return link;
}

void BpfSampler::release(bpf_link* link) {
  auto it = std::find(links_.begin(), links_.end(), link);
  if (it == links_.end()) return;
  bpf_link__destroy(link);
  links_.erase(it);
}

void BpfSampler::detach() {
  for (bpf_link* link : links_) bpf_link__destroy(link);
  links_.clear();
  schedulerLinks_.clear();
}

void BpfSampler::runTaskIterator(bpf_program* program, const char* what) {
  Link iterator(bpf_program__attach_iter(program, nullptr));
  UniqueFd run(iterator ? bpf_iter_create(bpf_link__fd(iterator.get())) : -1);
  if (!run) throw systemError(what);
  char ignored[256];
  while (::read(run.get(), ignored, sizeof ignored) > 0) {
  }
}

void BpfSampler::endOffCpuWindow(uint64_t endNs) {
  if (offCpu_) __atomic_store_n(&skel_->bss->off_cpu_stop_ns, endNs, __ATOMIC_RELEASE);
}

void BpfSampler::setOffCpuRunDelayEnds(const ThreadCpuTimes& end) {
  if (!offCpu_) return;
  for (const auto& [tid, runDelayNs] : end.runDelayByTid) {
    auto key = static_cast<uint32_t>(tid);
    uint64_t value = runDelayNs;
    bpf_map__update_elem(skel_->maps.run_delay_ends, &key, sizeof key, &value, sizeof value, BPF_ANY);
  }
}

void BpfSampler::flushOffCpu() {
  if (!offCpu_) return;
  runTaskIterator(lateProgram(kOffCpuFlushProgram),
                  "reading the waits still going on as the recording stops (the off-CPU task iterator)");
}

UniqueFd BpfSampler::offCpuFlushIterator(uint32_t tgid) {
  bpf_iter_link_info info{};
  info.task.pid = tgid;
  bpf_iter_attach_opts options{};
  options.sz = sizeof options;
  options.link_info = &info;
  options.link_info_len = sizeof info;
  // The iterator holds what it needs of the link: the link can go now.
  Link iterator(bpf_program__attach_iter(lateProgram(kOffCpuFlushProgram), &options));
  return UniqueFd(iterator ? bpf_iter_create(bpf_link__fd(iterator.get())) : -1);
}

uint64_t BpfSampler::offCpuFlushPasses() const {
  return __atomic_load_n(&skel_->bss->off_cpu_flush_passes, __ATOMIC_ACQUIRE);
}

void BpfSampler::primeOffCpu(uint32_t tgid, uint64_t addedNs) {
  skel_->bss->off_cpu_prime_tgid = tgid;
  skel_->bss->off_cpu_prime_added_ns = addedNs;
  // The allocator refills its caches from an irq_work: a few rounds, a moment apart, reach every thread.
  for (int round = 0; round < 10; ++round) {
    __atomic_store_n(&skel_->bss->off_cpu_prime_failures, 0, __ATOMIC_RELAXED);
    runTaskIterator(skel_->progs.prime_off_cpu, "preparing the off-CPU state of a target's threads (task iterator)");
    if (__atomic_load_n(&skel_->bss->off_cpu_prime_failures, __ATOMIC_ACQUIRE) == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void BpfSampler::setHotspot(uint32_t tgid, const jfrbpf_hotspot& layout) {
  if (bpf_map__update_elem(skel_->maps.hotspot_jvms, &tgid, sizeof(tgid), &layout, sizeof(layout), BPF_ANY) != 0) {
    throw systemError("publishing the JVM layout of process " + std::to_string(tgid) + " to BPF");
  }
  processMapsChanged();
  codeBlobsChanged();  // the process may be a new JVM under an old one's process id
}

void BpfSampler::setJavaThread(uint32_t tid, uint64_t javaThread) {
  // A full map only costs the JavaFrameAnchor fallback for this thread: not worth failing the recording.
  bpf_map__update_elem(skel_->maps.java_threads, &tid, sizeof(tid), &javaThread, sizeof(javaThread), BPF_ANY);
}

void BpfSampler::forgetJavaThread(uint32_t tid) {
  bpf_map__delete_elem(skel_->maps.java_threads, &tid, sizeof(tid), 0);
}

bool BpfSampler::watchCodeFrees(uint32_t tgid, const std::string& libjvmPath, std::string& whyNot) {
  std::vector<Link> probes;
  for (const char* function : kCodeHeapFreeFunctions) {
    LIBBPF_OPTS(bpf_uprobe_opts, options, .func_name = function);
    Link probe(bpf_program__attach_uprobe_opts(skel_->progs.on_code_freed, static_cast<pid_t>(tgid),
                                               libjvmPath.c_str(), 0, &options));
    if (!probe) {
      whyNot = std::string("cannot attach a uprobe to ") + function + " in " + libjvmPath + ": " + std::strerror(errno);
      return false;
    }
    probes.push_back(std::move(probe));
  }
  std::lock_guard lock(codeFreeProbesMutex_);
  codeFreeProbes_[tgid] = std::move(probes);
  return true;
}

void BpfSampler::setBudgetPeriod(uint64_t periodNs) {
  __atomic_store_n(&skel_->bss->budget_period_ns, periodNs, __ATOMIC_RELEASE);
}

void BpfSampler::codeBlobsChanged() { __atomic_fetch_add(&skel_->bss->code_epoch, 1, __ATOMIC_RELEASE); }

void BpfSampler::forgetProcess(uint32_t tgid) {
  forgetHotspot(tgid);
  bpf_map__delete_elem(skel_->maps.thread_context_locations, &tgid, sizeof(tgid), 0);
  bpf_map__delete_elem(skel_->maps.unwind_processes, &tgid, sizeof(tgid), 0);
  unwindMapsChanged();
  removeTarget(tgid);
}

void BpfSampler::setThreadContextLocation(uint32_t tgid, const jfrbpf_thread_context_location& location) {
  if (bpf_map__update_elem(skel_->maps.thread_context_locations, &tgid, sizeof(tgid), &location, sizeof(location),
                           BPF_ANY) != 0) {
    throw Error(std::string("cannot say where process ") + std::to_string(tgid) +
                " keeps its OpenTelemetry thread context: " + std::strerror(errno));
  }
}

void BpfSampler::forgetHotspot(uint32_t tgid) {
  {
    std::lock_guard lock(codeFreeProbesMutex_);
    codeFreeProbes_.erase(tgid);
  }
  bpf_map__delete_elem(skel_->maps.hotspot_jvms, &tgid, sizeof(tgid), 0);
  processMapsChanged();  // a walk must not go on with the layout it looked up before
  codeBlobsChanged();
}

int BpfSampler::ringBufferMapFd() const { return bpf_map__fd(skel_->maps.samples); }

void BpfSampler::attachTraceProbe(uint32_t pid, const std::string& path, uint64_t fileOffset, uint32_t agentSession) {
  if (!methodTraces_) throw Error("method tracing was not enabled when the BPF programs were loaded");
  LIBBPF_OPTS(bpf_uprobe_opts, options, .bpf_cookie = agentSession);
  bpf_link* link = bpf_program__attach_uprobe_opts(lateProgram(kTraceProgram), static_cast<pid_t>(pid), path.c_str(),
                                                   static_cast<size_t>(fileOffset), &options);
  if (!link) {
    int err = errno;
    throw systemError("attaching a uprobe to the trace stub of process " + std::to_string(pid) + " (" + path + ")", err);
  }
  traceLinks_.push_back(link);
}

void BpfSampler::detachTraceProbes() {
  for (bpf_link* link : traceLinks_) bpf_link__destroy(link);
  traceLinks_.clear();
}

TimerCounters BpfSampler::readTimerCounters() const {
  TimerCounters totals{};
  if (!methodTraces_) return totals;
  std::vector<uint64_t> sums = sumPerCpu(skel_->maps.timer_counters, JFRBPF_TIMER_COUNTER_COUNT);
  std::copy(sums.begin(), sums.end(), totals.begin());
  return totals;
}

int BpfSampler::traceRingBufferMapFd() const { return bpf_map__fd(skel_->maps.traces); }

int BpfSampler::traceProgramFd() const { return methodTraces_ ? bpf_program__fd(lateProgram(kTraceProgram)) : -1; }

bool BpfSampler::traceProbeHit(uint32_t tgid) const {
  uint8_t hit = 0;
  return methodTraces_ &&
         bpf_map__lookup_elem(skel_->maps.hooked_processes, &tgid, sizeof(tgid), &hit, sizeof(hit), 0) == 0;
}

int BpfSampler::programFd() const { return bpf_program__fd(skel_->progs.on_cpu_clock); }

SamplerCounters BpfSampler::readCounters() const {
  SamplerCounters totals{};
  std::vector<uint64_t> sums = sumPerCpu(skel_->maps.counters, JFRBPF_COUNTER_COUNT);
  std::copy(sums.begin(), sums.end(), totals.begin());
  return totals;
}

SampleCostHistogram BpfSampler::readSampleCosts() const {
  return measureSampleCost_ ? sumPerCpu(skel_->maps.sample_costs, JFRBPF_COST_BUCKETS) : SampleCostHistogram{};
}

void BpfSampler::forgetThreadLosses(const std::vector<ThreadLoss>& losses) {
  for (const ThreadLoss& loss : losses) {
    bpf_map__delete_elem(skel_->maps.thread_losses, &loss.tid, sizeof(loss.tid), 0);
  }
}

std::vector<ThreadLoss> BpfSampler::readThreadLosses() const {
  std::vector<ThreadLoss> losses;
  uint32_t key = 0;
  uint32_t next = 0;
  const uint32_t* previous = nullptr;
  while (bpf_map__get_next_key(skel_->maps.thread_losses, previous, &next, sizeof(next)) == 0) {
    jfrbpf_thread_loss value{};
    if (bpf_map__lookup_elem(skel_->maps.thread_losses, &next, sizeof(next), &value, sizeof(value), 0) == 0) {
      losses.push_back({next, value.tgid, value.lost_ringbuf_full, value.lost_cpu_ns, value.lost_off_cpu,
                        value.lost_off_cpu_ns, value.unsampled, value.unsampled_cpu_ns});
    }
    key = next;
    previous = &key;
  }
  return losses;
}

}  // namespace jfrbpf::record
