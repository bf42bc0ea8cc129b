//===- PtxEmitter.cpp - LLVM dialect to PTX through NVPTX -----------------===//
//
// Part of ksc. See include/ksc/Target/PTX/PtxEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "ksc/Target/PTX/PtxEmitter.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;
using namespace ksc;

static constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

static const llvm::Target *nvptxTarget(std::string &error) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  return llvm::TargetRegistry::lookupTarget(llvm::Triple(kTriple), error);
}

bool ksc::isKnownCudaArch(llvm::StringRef arch) {
  if (!arch.starts_with("sm_"))
    return false;
  std::string error;
  const llvm::Target *target = nvptxTarget(error);
  if (!target)
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(llvm::Triple(kTriple), arch, ""));
  return info && info->isCPUStringValid(arch);
}

std::string ksc::cudaToolkitRoot(llvm::StringRef cudaPath) {
  std::string root = cudaPath.str();
  if (root.empty())
    root = llvm::sys::Process::GetEnv("CUDA_HOME").value_or("");
  if (root.empty())
    root = "/usr/local/cuda";
  return root;
}

std::string ksc::libdevicePath(llvm::StringRef cudaPath) {
  llvm::SmallString<256> path(cudaToolkitRoot(cudaPath));
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return std::string(path);
}

/// Links the libdevice functions `module` calls (`__nv_*`) into it.
static LogicalResult linkLibdevice(ModuleOp op, llvm::Module &module,
                                   const PtxOptions &options) {
  const llvm::Function *first = nullptr;
  for (const llvm::Function &function : module)
    if (function.isDeclaration() && function.getName().starts_with("__nv_")) {
      first = &function;
      break;
    }
  if (!first)
    return success();
  std::string path = libdevicePath(options.cudaPath);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return op.emitError() << "cannot read libdevice, which the kernels need "
                             "for '"
                          << first->getName() << "': " << path << ": "
                          << buffer.getError().message()
                          << " (give the CUDA toolkit with --cuda-path or "
                             "CUDA_HOME)";
  // Lazily: only the functions the kernels call are read and linked.
  llvm::Expected<std::unique_ptr<llvm::Module>> libdevice =
      llvm::getOwningLazyBitcodeModule(std::move(*buffer), module.getContext());
  if (!libdevice)
    return op.emitError() << "cannot read libdevice " << path << ": "
                          << llvm::toString(libdevice.takeError());
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*libdevice),
                                llvm::Linker::LinkOnlyNeeded))
    return op.emitError() << "cannot link libdevice " << path;
  // libdevice reads the denormal mode through __nvvm_reflect: IEEE
  // denormals, as the CPU and nvcc's default.
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return success();
}

/// Makes every defined function but the kernels internal, so that the
/// optimizer may inline and drop them.
static void internalize(llvm::Module &module) {
  for (llvm::Function &function : module)
    if (!function.isDeclaration() &&
        function.getCallingConv() != llvm::CallingConv::PTX_Kernel)
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
}

/// Every pointer a kernel receives (the data of its arrays) points to
/// global memory, which is what CUDA's allocators return: casting it to the
/// global address space and back lets the NVPTX backend's address space
/// inference use global loads and stores (`ld.global`) for it instead of
/// generic ones. Done after the optimizer, which would fold the casts away.
static void assumeGlobalKernelPointers(llvm::Module &module) {
  llvm::PointerType *global = llvm::PointerType::get(module.getContext(), 1);
  for (llvm::Function &function : module) {
    if (function.getCallingConv() != llvm::CallingConv::PTX_Kernel)
      continue;
    for (llvm::Argument &argument : function.args())
      for (llvm::User *user : llvm::make_early_inc_range(argument.users())) {
        auto *field = llvm::dyn_cast<llvm::ExtractValueInst>(user);
        if (!field || !field->getType()->isPointerTy() ||
            field->getType()->getPointerAddressSpace() != 0)
          continue;
        llvm::IRBuilder<> builder(field->getNextNode());
        llvm::Value *asGlobal = builder.CreateAddrSpaceCast(field, global);
        llvm::Value *generic =
            builder.CreateAddrSpaceCast(asGlobal, field->getType());
        field->replaceUsesWithIf(
            generic, [&](llvm::Use &use) { return use.getUser() != asGlobal; });
      }
  }
}

/// Whether `module` calls the warp-synchronous intrinsics of the sums ksc
/// reduces in warps and blocks (convert-ks-to-llvm's ReductionsToLLVM):
/// `shfl.sync`, `vote.sync` and `match.sync` need PTX 6.0, `activemask`
/// PTX 6.2.
static bool usesWarpIntrinsics(const llvm::Module &module) {
  for (const llvm::Function &function : module) {
    llvm::StringRef name = function.getName();
    if (name == "llvm.nvvm.activemask" ||
        name.starts_with("llvm.nvvm.shfl.sync.") ||
        name.starts_with("llvm.nvvm.vote.") ||
        name.starts_with("llvm.nvvm.match."))
      return true;
  }
  return false;
}

/// The number of an architecture sm_XX or sm_XXa (XX).
static unsigned smVersion(llvm::StringRef arch) {
  unsigned version = 0;
  arch.drop_front(3).take_while(llvm::isDigit).getAsInteger(10, version);
  return version;
}

/// Before sm_70 a warp cannot match values (`match.any.sync`): every lane
/// is then its own group, so that an aggregated update (which votes that
/// every lane updates an element of its own) is the plain atomic update.
static void withoutMatch(llvm::Module &module) {
  for (llvm::Function &function : llvm::make_early_inc_range(module)) {
    if (!function.getName().starts_with("llvm.nvvm.match.any.sync."))
      continue;
    for (llvm::User *user : llvm::make_early_inc_range(function.users())) {
      auto *call = llvm::cast<llvm::CallInst>(user);
      llvm::IRBuilder<> builder(call);
      llvm::Value *tid =
          builder.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,
                                  {});
      llvm::Value *lane = builder.CreateAnd(tid, 31);
      llvm::Value *self = builder.CreateShl(builder.getInt32(1), lane);
      call->replaceAllUsesWith(self);
      call->eraseFromParent();
    }
    function.eraseFromParent();
  }
}

static void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
}

LogicalResult ksc::translateToPtx(ModuleOp op, llvm::raw_ostream &os,
                                  const PtxOptions &options) {
  if (!isKnownCudaArch(options.arch))
    return op.emitError() << "unknown GPU architecture '" << options.arch
                          << "' (expected sm_XX or sm_XXa that LLVM's NVPTX "
                             "backend knows, such as sm_80, sm_90 or sm_90a)";
  std::string error;
  const llvm::Target *target = nvptxTarget(error);
  if (!target)
    return op.emitError() << "LLVM's NVPTX backend is unavailable: " << error;

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  op->getContext()->appendDialectRegistry(registry);

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(op, context, "ksc");
  if (!module)
    return failure();

  // The PTX ISA version is the lowest the architecture needs (6.3 from
  // sm_75 on), and at least 6.2 for the warp intrinsics of reductions.
  llvm::Triple triple(kTriple);
  bool warpIntrinsics = usesWarpIntrinsics(*module);
  unsigned sm = smVersion(options.arch);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.arch, warpIntrinsics && sm < 75 ? "+ptx62" : "",
      llvm::TargetOptions(), std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return op.emitError() << "cannot create the NVPTX target for "
                          << options.arch;
  if (warpIntrinsics && sm < 70)
    withoutMatch(*module);
  module->setTargetTriple(triple);
  module->setDataLayout(machine->createDataLayout());
  if (failed(linkLibdevice(op, *module, options)))
    return failure();
  internalize(*module);
  optimize(*module, *machine);
  assumeGlobalKernelPointers(*module);

  if (options.llvmIR) {
    module->print(os, nullptr);
    return success();
  }
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream ptxStream(ptx);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, ptxStream, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
    return op.emitError() << "the NVPTX backend cannot write PTX";
  codegen.run(*module);
  os << ptx;
  return success();
}
