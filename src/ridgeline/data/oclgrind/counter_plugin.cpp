// ridgeline's Oclgrind plugin: dynamic operation counts of one kernel launch.
//
// Loaded with `oclgrind-kernel --plugins THIS.so`; writes one JSON object per kernel
// invocation to the file named by $RIDGELINE_OCLGRIND_OUT (appended). Counts are per
// lane: a float4 add is 4 single-precision FLOPs; fma/mad/fmuladd count 2 per lane.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "llvm/IR/Argument.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Type.h"

#include "oclgrind/Context.h"
#include "oclgrind/Kernel.h"
#include "oclgrind/KernelInvocation.h"
#include "oclgrind/Memory.h"
#include "oclgrind/Plugin.h"
#include "oclgrind/WorkGroup.h"
#include "oclgrind/WorkItem.h"

using namespace oclgrind;

namespace {

const unsigned kSector = 32;
const unsigned kWarp = 32;

struct ArgRange {
  long long lo = -1;   // lowest byte offset touched
  long long hi = -1;   // one past the highest byte offset touched
  unsigned long long loadBytes = 0, storeBytes = 0;
};

struct Pending {
  size_t address, size;
  unsigned space;
  bool store;
};

class Counter : public Plugin {
public:
  explicit Counter(const Context* c) : Plugin(c) {}

  bool isThreadSafe() const override { return false; }

  void kernelBegin(const KernelInvocation* inv) override {
    reset();
    const Kernel* k = inv->getKernel();
    name_ = k->getName();
    gsize_ = inv->getGlobalSize();
    lsize_ = inv->getLocalSize();
    for (auto it = k->values_begin(); it != k->values_end(); ++it) {
      auto* arg = llvm::dyn_cast<llvm::Argument>(it->first);
      if (!arg || !arg->getType()->isPointerTy()) continue;
      unsigned space = arg->getType()->getPointerAddressSpace();
      if (space != AddrSpaceGlobal && space != AddrSpaceConstant) continue;
      if (!it->second.data || it->second.size != sizeof(size_t)) continue;
      size_t addr = it->second.getPointer();
      argOfBuffer_[addr] = arg->getArgNo();
    }
  }

  void instructionExecuted(const WorkItem* wi, const llvm::Instruction* inst,
                           const TypedValue& result) override {
    ++instructions_;
    unsigned op = inst->getOpcode();
    llvm::Type* ty = inst->getType();
    unsigned lanes = 1;
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(ty)) {
      lanes = vt->getNumElements();
      ty = vt->getElementType();
    }
    switch (op) {
      case llvm::Instruction::FAdd: case llvm::Instruction::FSub:
      case llvm::Instruction::FMul: case llvm::Instruction::FDiv:
      case llvm::Instruction::FRem: case llvm::Instruction::FNeg:
        addFlops(ty, lanes); break;
      case llvm::Instruction::Add: case llvm::Instruction::Sub:
      case llvm::Instruction::Mul: case llvm::Instruction::UDiv:
      case llvm::Instruction::SDiv: case llvm::Instruction::URem:
      case llvm::Instruction::SRem: case llvm::Instruction::Shl:
      case llvm::Instruction::LShr: case llvm::Instruction::AShr:
      case llvm::Instruction::And: case llvm::Instruction::Or:
      case llvm::Instruction::Xor:
        intOps_ += lanes; break;
      case llvm::Instruction::ICmp: {
        unsigned l = 1;
        if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(inst->getOperand(0)->getType()))
          l = vt->getNumElements();
        intOps_ += l; break;
      }
      case llvm::Instruction::FCmp: fcmp_ += lanes; break;
      case llvm::Instruction::GetElementPtr: gep_ += 1; break;
      case llvm::Instruction::Trunc: case llvm::Instruction::ZExt:
      case llvm::Instruction::SExt: case llvm::Instruction::FPToUI:
      case llvm::Instruction::FPToSI: case llvm::Instruction::UIToFP:
      case llvm::Instruction::SIToFP: case llvm::Instruction::FPTrunc:
      case llvm::Instruction::FPExt:
        convOps_ += lanes; break;
      case llvm::Instruction::Br: case llvm::Instruction::Switch:
        branches_ += 1; break;
      case llvm::Instruction::Call: call(inst, ty, lanes); break;
      default: break;
    }
    if (op == llvm::Instruction::Load || op == llvm::Instruction::Store) attribute(wi, inst);
    pending_.clear();
  }

  void memoryLoad(const Memory* m, const WorkItem* wi, size_t a, size_t s) override {
    access(m, a, s, false);
  }
  void memoryStore(const Memory* m, const WorkItem* wi, size_t a, size_t s,
                   const uint8_t*) override {
    access(m, a, s, true);
  }
  void memoryLoad(const Memory* m, const WorkGroup*, size_t a, size_t s) override {
    access(m, a, s, false);  // async copies
  }
  void memoryStore(const Memory* m, const WorkGroup*, size_t a, size_t s,
                   const uint8_t*) override {
    access(m, a, s, true);
  }
  void memoryAtomicLoad(const Memory* m, const WorkItem*, AtomicOp, size_t a,
                        size_t s) override {
    if (m->getAddressSpace() == AddrSpaceGlobal) ++atomicsGlobal_; else ++atomicsLocal_;
    touch(m, a, s, false);
  }
  void memoryAtomicStore(const Memory* m, const WorkItem*, AtomicOp, size_t a,
                         size_t s) override {
    touch(m, a, s, true);
  }
  void workGroupBarrier(const WorkGroup*, uint32_t) override { ++barriers_; }

  void workGroupComplete(const WorkGroup*) override {
    // per-group work, to tell whether a sample of groups (--quick) stands for the others
    unsigned long long work = instructions_ - groupStart_;
    groupStart_ = instructions_;
    groupMin_ = groups_ ? std::min(groupMin_, work) : work;
    groupMax_ = groups_ ? std::max(groupMax_, work) : work;
    ++groups_;
    for (auto& kv : warpSectors_) warpSectorRequests_ += kv.second.size();
    warpRequests_ += warpSectors_.size();
    warpSectors_.clear();
    occurrence_.clear();
  }

  void kernelEnd(const KernelInvocation*) override {
    for (auto& kv : warpSectors_) warpSectorRequests_ += kv.second.size();
    warpRequests_ += warpSectors_.size();
    warpSectors_.clear();
    write();
  }

private:
  std::string name_;
  Size3 gsize_, lsize_;
  std::map<size_t, unsigned> argOfBuffer_;
  std::map<unsigned, ArgRange> args_;
  unsigned long long instructions_ = 0, intOps_ = 0, fcmp_ = 0, gep_ = 0, convOps_ = 0,
                     branches_ = 0, barriers_ = 0, atomicsGlobal_ = 0, atomicsLocal_ = 0;
  unsigned long long flops_[3] = {0, 0, 0}, fma_[3] = {0, 0, 0}, special_[3] = {0, 0, 0};
  unsigned long long bytes_[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
  unsigned long long accesses_[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
  unsigned long long warpSectorRequests_ = 0, warpRequests_ = 0;
  unsigned long long groups_ = 0, groupStart_ = 0, groupMin_ = 0, groupMax_ = 0;
  std::unordered_set<unsigned long long> sectorsLoad_, sectorsStore_;
  std::vector<Pending> pending_;
  std::map<std::pair<const WorkItem*, const llvm::Instruction*>, unsigned> occurrence_;
  std::map<std::tuple<const llvm::Instruction*, size_t, unsigned>, std::set<unsigned long long>>
      warpSectors_;

  void reset() {
    argOfBuffer_.clear(); args_.clear(); pending_.clear(); occurrence_.clear();
    warpSectors_.clear(); sectorsLoad_.clear(); sectorsStore_.clear();
    instructions_ = intOps_ = fcmp_ = gep_ = convOps_ = branches_ = barriers_ = 0;
    atomicsGlobal_ = atomicsLocal_ = warpSectorRequests_ = warpRequests_ = 0;
    groups_ = groupStart_ = groupMin_ = groupMax_ = 0;
    for (int i = 0; i < 3; ++i) flops_[i] = fma_[i] = special_[i] = 0;
    for (int i = 0; i < 4; ++i) bytes_[i][0] = bytes_[i][1] = accesses_[i][0] = accesses_[i][1] = 0;
  }

  static int precision(llvm::Type* t) {
    if (t->isHalfTy()) return 2;
    if (t->isFloatTy()) return 0;
    if (t->isDoubleTy()) return 1;
    return -1;
  }

  void addFlops(llvm::Type* t, unsigned lanes, unsigned per = 1) {
    int p = precision(t);
    if (p >= 0) flops_[p] += (unsigned long long)lanes * per;
  }

  void call(const llvm::Instruction* inst, llvm::Type* ty, unsigned lanes) {
    auto* ci = llvm::dyn_cast<llvm::CallInst>(inst);
    const llvm::Function* f = ci ? ci->getCalledFunction() : nullptr;
    if (!f) return;
    std::string n = f->getName().str();
    int p = precision(ty);
    if (p < 0) return;
    bool fma = n.rfind("llvm.fmuladd", 0) == 0 || n.rfind("llvm.fma.", 0) == 0 ||
               n.rfind("_Z3fma", 0) == 0 || n.rfind("_Z3mad", 0) == 0;
    if (fma) { addFlops(ty, lanes, 2); fma_[p] += lanes; }
    else special_[p] += lanes;
  }

  void access(const Memory* m, size_t a, size_t s, bool store) {
    unsigned sp = m->getAddressSpace();
    if (sp > 3) return;
    bytes_[sp][store] += s;
    accesses_[sp][store] += 1;
    touch(m, a, s, store);
    if (sp == AddrSpaceGlobal) {
      pending_.push_back({a, s, sp, store});
      auto& set = store ? sectorsStore_ : sectorsLoad_;
      for (size_t x = a / kSector; x <= (a + s - 1) / kSector; ++x) set.insert(x);
    }
  }

  void touch(const Memory* m, size_t a, size_t s, bool store) {
    if (m->getAddressSpace() != AddrSpaceGlobal) return;
    long long off = (long long)m->extractOffset(a);
    auto it = argOfBuffer_.find(a - (size_t)off);
    if (it == argOfBuffer_.end()) return;
    ArgRange& r = args_[it->second];
    if (r.lo < 0 || off < r.lo) r.lo = off;
    if (off + (long long)s > r.hi) r.hi = off + (long long)s;
    (store ? r.storeBytes : r.loadBytes) += s;
  }

  void attribute(const WorkItem* wi, const llvm::Instruction* inst) {
    if (pending_.empty() || !wi) return;
    unsigned occ = occurrence_[{wi, inst}]++;
    Size3 lid = wi->getLocalID();
    size_t linear = lid.x + lsize_.x * (lid.y + lsize_.y * lid.z);
    size_t group = wi->getWorkGroup()->getGroupIndex();
    size_t warp = group * 1000003ULL + linear / kWarp;
    auto& set = warpSectors_[{inst, warp, occ}];
    for (auto& p : pending_)
      for (size_t x = p.address / kSector; x <= (p.address + p.size - 1) / kSector; ++x)
        set.insert(x);
  }

  void write() {
    const char* path = std::getenv("RIDGELINE_OCLGRIND_OUT");
    if (!path) return;
    FILE* f = std::fopen(path, "a");
    if (!f) return;
    std::fprintf(f, "{\"kernel\": \"%s\", \"global\": [%zu, %zu, %zu], \"local\": [%zu, %zu, %zu]",
                 name_.c_str(), gsize_.x, gsize_.y, gsize_.z, lsize_.x, lsize_.y, lsize_.z);
    std::fprintf(f, ", \"instructions\": %llu, \"flops_sp\": %llu, \"flops_dp\": %llu, "
                 "\"flops_hp\": %llu, \"fma_sp\": %llu, \"fma_dp\": %llu, \"fma_hp\": %llu, "
                 "\"special_sp\": %llu, \"special_dp\": %llu, \"special_hp\": %llu, "
                 "\"int_ops\": %llu, \"fp_compares\": %llu, \"address_ops\": %llu, "
                 "\"convert_ops\": %llu, \"branches\": %llu, \"barriers\": %llu, "
                 "\"atomics_global\": %llu, \"atomics_local\": %llu",
                 instructions_, flops_[0], flops_[1], flops_[2], fma_[0], fma_[1], fma_[2],
                 special_[0], special_[1], special_[2], intOps_, fcmp_, gep_, convOps_,
                 branches_, barriers_, atomicsGlobal_, atomicsLocal_);
    const char* names[4] = {"private", "global", "constant", "local"};
    for (int sp = 0; sp < 4; ++sp)
      std::fprintf(f, ", \"%s_load_bytes\": %llu, \"%s_store_bytes\": %llu, "
                   "\"%s_loads\": %llu, \"%s_stores\": %llu",
                   names[sp], bytes_[sp][0], names[sp], bytes_[sp][1], names[sp],
                   accesses_[sp][0], names[sp], accesses_[sp][1]);
    std::fprintf(f, ", \"global_sectors_load\": %zu, \"global_sectors_store\": %zu"
                 ", \"warp_sector_requests\": %llu, \"warp_requests\": %llu, \"groups\": %llu"
                 ", \"group_instructions_min\": %llu, \"group_instructions_max\": %llu"
                 ", \"args\": {",
                 sectorsLoad_.size(), sectorsStore_.size(), warpSectorRequests_, warpRequests_,
                 groups_, groupMin_, groupMax_);
    bool first = true;
    for (auto& kv : args_) {
      std::fprintf(f, "%s\"%u\": {\"lo\": %lld, \"hi\": %lld, \"load_bytes\": %llu, "
                   "\"store_bytes\": %llu}", first ? "" : ", ", kv.first, kv.second.lo,
                   kv.second.hi, kv.second.loadBytes, kv.second.storeBytes);
      first = false;
    }
    std::fprintf(f, "}}\n");
    std::fclose(f);
  }
};

Counter* g_counter = nullptr;

}  // namespace

extern "C" void initializePlugins(Context* context) {
  g_counter = new Counter(context);
  context->registerPlugin(g_counter);
}

extern "C" void destroyPlugins(Context* context) {
  context->unregisterPlugin(g_counter);
  delete g_counter;
  g_counter = nullptr;
}
