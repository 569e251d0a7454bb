//===- compiler/driver/Options.cpp - Command-line options shared by the tools ===//
#include "compiler/driver/Options.h"

#include "compiler/driver/CrashGuard.h"

#include "llvm/Config/llvm-config.h"

namespace dlm {

OptionStatus parseCommonOption(llvm::StringRef arg, CompilerOptions &options, std::string &error) {
  if (arg.size() == 3 && arg.starts_with("-O") && arg[2] >= '0' && arg[2] <= '3') {
    options.optLevel = static_cast<unsigned>(arg[2] - '0');
    return OptionStatus::Consumed;
  }
  if (arg.starts_with("-O")) {
    error = "invalid optimisation level '" + arg.str() + "' (use -O0, -O1, -O2 or -O3)";
    return OptionStatus::Invalid;
  }
  if (arg.consume_front("--passes=")) {
    options.passes = arg.str();
    return OptionStatus::Consumed;
  }
  if (arg.consume_front("--remat-budget=")) {
    if (arg.getAsInteger(10, options.rematBudget) || options.rematBudget <= 0) {
      error = "--remat-budget wants a positive number of bytes, not '" + arg.str() + "'";
      return OptionStatus::Invalid;
    }
    return OptionStatus::Consumed;
  }
  if (arg.consume_front("--device=")) {
    std::optional<rt::DeviceRequest> device = rt::parseDeviceRequest(arg);
    if (!device) {
      error = "unknown device '" + arg.str() + "' (expected cpu, cuda or auto)";
      return OptionStatus::Invalid;
    }
    options.device = *device;
    return OptionStatus::Consumed;
  }
  if (arg == "--placement-cost=on" || arg == "--placement-cost=off") {
    options.placementCost = arg.ends_with("=on");
    return OptionStatus::Consumed;
  }
  if (arg == "--print-after-all") {
    options.printAfterAll = true;
    return OptionStatus::Consumed;
  }
  if (arg == "--print-locs") {
    options.printLocs = true;
    return OptionStatus::Consumed;
  }
  if (arg == "--verify-diagnostics") {
    options.verifyDiagnostics = true;
    return OptionStatus::Consumed;
  }
  if (arg == "--time-passes") {
    options.timePasses = true;
    return OptionStatus::Consumed;
  }
  if (arg == "--debug-crash") {
    options.debugCrash = true;
    return OptionStatus::Consumed;
  }
  if (arg == "--debug-crash=jit-worker") {
    options.debugCrashJitWorker = true;
    return OptionStatus::Consumed;
  }
  if (arg == "--no-color") {
    options.color = ColorMode::Never;
    return OptionStatus::Consumed;
  }
  if (arg.consume_front("--color=")) {
    if (arg == "auto")
      options.color = ColorMode::Auto;
    else if (arg == "always")
      options.color = ColorMode::Always;
    else if (arg == "never")
      options.color = ColorMode::Never;
    else {
      error = "invalid --color value '" + arg.str() + "' (use auto, always or never)";
      return OptionStatus::Invalid;
    }
    return OptionStatus::Consumed;
  }
  return OptionStatus::NotMine;
}

void printCommonOptionsHelp(llvm::raw_ostream &os) {
  os << "  -O0 .. -O3              optimisation level (default -O2)\n"
     << "  --passes=P1,P2,...      run these graph passes instead of the level's pipeline\n"
     << "  --remat-budget=BYTES    the planned peak the 'remat' pass recomputes values to meet\n"
     << "  --device=auto|cpu|cuda  where the program runs (default auto: the GPU when one\n"
     << "                          answers, else the CPU; cuda without a GPU is an error)\n"
     << "  --placement-cost=on|off on (default): ops whose copies to the GPU cost more\n"
     << "                          than they save stay on the CPU; off: every op the GPU runs\n"
     << "  --print-after-all       print each stage's result to stderr after it runs\n"
     << "  --print-locs            print source locations in printed IR (--emit=ssa, grad-ssa,\n"
     << "                          graph, grad, opt; --print-after-all)\n"
     << "  --time-passes           print the time of each stage to stderr\n"
     << "  --verify-diagnostics    check diagnostics against '# expected-error {{...}}'\n"
     << "                          comments in the source instead of printing them\n"
     << "  --color=auto|always|never  colour diagnostics (auto: on a terminal without\n"
     << "                          NO_COLOR); --no-color is --color=never\n"
     << "  --help                  show this help\n"
     << "  --version               show the version\n";
}

void printVersion(llvm::raw_ostream &os, llvm::StringRef tool) {
  os << tool << " " << DLM_VERSION << " (LLVM " << LLVM_VERSION_STRING << ")\n";
}

int usageError(llvm::StringRef tool, const llvm::Twine &message) {
  llvm::errs() << tool << ": error: " << message << "\n"
               << tool << ": note: run '" << tool << " --help' for usage\n";
  return ExitUsage;
}

bool isOption(llvm::StringRef arg) { return arg.size() > 1 && arg.starts_with("-"); }

} // namespace dlm
