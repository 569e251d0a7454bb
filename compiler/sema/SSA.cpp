//===- compiler/sema/SSA.cpp - SSA construction helpers, printer, verifier -===//
//
// The printed form (docs/sema.md) numbers values per function in program order: an op's results,
// then its header values, then the values inside its regions. Attributes print sorted by name.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/SSA.h"

#include "compiler/support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

namespace dlm::ssa {

const char *opKindName(OpKind kind) {
  switch (kind) {
  case OpKind::Builtin:
    return "builtin";
  case OpKind::Tuple:
    return "tuple";
  case OpKind::Get:
    return "get";
  case OpKind::Dim:
    return "dim";
  case OpKind::Undef:
    return "undef";
  case OpKind::Call:
    return "call";
  case OpKind::Grad:
    return "grad";
  case OpKind::If:
    return "if";
  case OpKind::While:
    return "while";
  case OpKind::For:
    return "for";
  case OpKind::Yield:
    return "yield";
  case OpKind::Condition:
    return "condition";
  case OpKind::Return:
    return "return";
  }
  return "?";
}

Value *Block::addArg(Type type, llvm::SMRange loc) {
  args.push_back(std::make_unique<Value>(std::move(type), nullptr, unsigned(args.size()), loc));
  return args.back().get();
}

Operation *Block::terminator() const {
  if (ops.empty())
    return nullptr;
  Operation *last = ops.back().get();
  bool isTerm = last->kind == OpKind::Yield || last->kind == OpKind::Condition ||
                last->kind == OpKind::Return;
  return isTerm ? last : nullptr;
}

std::string Operation::name() const { return info ? info->name : opKindName(kind); }

Value *Operation::addResult(Type type) {
  results.push_back(std::make_unique<Value>(std::move(type), this, unsigned(results.size()), loc));
  return results.back().get();
}

Region &Operation::addRegion() {
  regions.push_back(std::make_unique<Region>());
  regions.back()->block->parentOp = this;
  return *regions.back();
}

Function *Program::lookup(llvm::StringRef name) const {
  for (const auto &f : functions)
    if (f->name == name)
      return f.get();
  return nullptr;
}

Function &Program::addFunction(std::string name, llvm::SMRange loc) {
  functions.push_back(std::make_unique<Function>());
  functions.back()->name = std::move(name);
  functions.back()->loc = loc;
  return *functions.back();
}

const InlineSite *Program::addSite(llvm::SMRange call, std::string function,
                                   const InlineSite *parent) {
  sites.push_back(InlineSite{call, std::move(function), parent});
  return &sites.back();
}

const InlineSite *Program::appendSite(const InlineSite *inner, const InlineSite *outer) {
  if (!inner)
    return outer;
  if (!outer)
    return inner;
  auto [it, fresh] = appended.try_emplace({inner, outer}, nullptr);
  if (fresh)
    it->second = addSite(inner->call, inner->function, appendSite(inner->parent, outer));
  return it->second;
}

std::string Operation::calleeName() const {
  std::string name = callee ? callee->sourceName() : std::string();
  if (kind != OpKind::Grad)
    return name;
  auto it = attrs.find("with_value");
  bool withValue = it != attrs.end() && std::get<bool>(it->second);
  return (withValue ? "value_and_grad(" : "grad(") + name + ")";
}

std::string Function::sourceName() const {
  size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot + 1 == name.size())
    return name;
  for (size_t i = dot + 1; i < name.size(); ++i)
    if (!llvm::isDigit(name[i]))
      return name;
  return name.substr(0, dot);
}

//===----------------------------------------------------------------------===//
// Printer
//===----------------------------------------------------------------------===//

namespace {

class Printer {
public:
  Printer(llvm::raw_ostream &os, const PrintOptions &options) : os(os), options(options) {}

  void printFunction(const Function &f) {
    numbers.clear();
    next = 0;
    os << "func @" << f.name << "(";
    const Block &entry = f.entry();
    for (size_t i = 0; i < entry.args.size(); ++i) {
      os << (i ? ", " : "") << define(entry.args[i].get()) << ": " << entry.args[i]->type.str();
    }
    os << ") -> " << f.resultType.str();
    if (f.isCheckpointed)
      os << " attributes {checkpoint}";
    os << " {\n";
    printBlock(entry, 1);
    os << "}\n";
  }

private:
  std::string define(const Value *v) {
    numbers[v] = next;
    return "%" + std::to_string(next++);
  }
  std::string use(const Value *v) {
    auto it = numbers.find(v);
    return it == numbers.end() ? "%<undefined>" : "%" + std::to_string(it->second);
  }
  void indent(int depth) { os.indent(2 * depth); }

  void printBlock(const Block &b, int depth) {
    for (const auto &op : b.ops)
      printOp(*op, depth);
  }

  void printUses(const std::vector<Value *> &vs, size_t from = 0, size_t to = ~size_t(0)) {
    for (size_t i = from; i < vs.size() && i < to; ++i)
      os << (i > from ? ", " : "") << use(vs[i]);
  }

  void printAttrs(const Attrs &attrs) {
    if (attrs.empty())
      return;
    os << " {";
    bool first = true;
    for (const auto &[name, value] : attrs) {
      os << (first ? "" : ", ") << name << " = " << attrStr(value);
      first = false;
    }
    os << "}";
  }

  void printResultTypes(const Operation &op) {
    if (op.results.empty())
      return;
    os << " : ";
    for (size_t i = 0; i < op.results.size(); ++i)
      os << (i ? ", " : "") << op.results[i]->type.str();
  }

  void printLoc(const Operation &op) {
    if (!options.printLocs || !options.diags || !op.loc.Start.isValid())
      return;
    os << " loc(";
    printPosition(op.loc);
    if (!op.gradOf.empty())
      os << " grad_of \"" << op.gradOf << "\"";
    // The calls whose bodies autodiff copied this op through, innermost first — the chain
    // .dlmir prints: ` in "nn.linear" at "m.dlm":8:26`.
    for (const InlineSite *site = op.inlinedAt; site; site = site->parent) {
      os << " in \"" << site->function << "\" at ";
      printPosition(site->call);
    }
    os << ")";
  }

  void printPosition(llvm::SMRange loc) {
    if (!loc.Start.isValid()) {
      os << "unknown";
      return;
    }
    auto [line, col] = options.diags->getLineAndColumn(loc.Start);
    os << "\"" << options.diags->getBufferName(loc.Start) << "\":" << line << ":" << col;
  }

  /// `(%h0 = %init0, %h1 = %init1)` for a loop's header values.
  void printCarried(const Operation &op, size_t firstInit, size_t firstHeader) {
    if (op.carried.size() <= firstHeader)
      return;
    os << " iter (";
    for (size_t i = firstHeader; i < op.carried.size(); ++i) {
      os << (i > firstHeader ? ", " : "") << define(op.carried[i].get()) << " = "
         << use(op.operands[firstInit + i - firstHeader]);
    }
    os << ")";
  }

  void printOp(const Operation &op, int depth) {
    indent(depth);
    for (size_t i = 0; i < op.results.size(); ++i)
      os << (i ? ", " : "") << define(op.results[i].get());
    if (!op.results.empty())
      os << " = ";
    os << op.name();
    switch (op.kind) {
    case OpKind::Call:
    case OpKind::Grad:
      os << " @" << (op.callee ? op.callee->name : "<null>") << "(";
      printUses(op.operands);
      os << ")";
      break;
    case OpKind::While:
      printCarried(op, 0, 0);
      break;
    case OpKind::For:
      os << " " << define(op.carried[0].get()) << " = " << use(op.operands[0]) << " to "
         << use(op.operands[1]) << " step " << use(op.operands[2]);
      printCarried(op, 3, 1);
      break;
    default:
      if (!op.operands.empty())
        os << " ";
      printUses(op.operands);
    }
    printAttrs(op.attrs);
    printResultTypes(op);
    printLoc(op);
    if (op.regions.empty()) {
      os << "\n";
      return;
    }
    for (size_t r = 0; r < op.regions.size(); ++r) {
      if (r == 0)
        os << " {\n";
      else
        os << (op.kind == OpKind::While ? " do {\n" : " else {\n");
      printBlock(*op.regions[r]->block, depth + 1);
      indent(depth);
      os << "}";
    }
    os << "\n";
  }

  llvm::raw_ostream &os;
  const PrintOptions &options;
  llvm::DenseMap<const Value *, unsigned> numbers;
  unsigned next = 0;
};

} // namespace

void print(const Function &function, llvm::raw_ostream &os, const PrintOptions &options) {
  Printer(os, options).printFunction(function);
}

void print(const Program &program, llvm::raw_ostream &os, const PrintOptions &options) {
  for (size_t i = 0; i < program.functions.size(); ++i) {
    if (i)
      os << "\n";
    print(*program.functions[i], os, options);
  }
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

namespace {

class Verifier {
public:
  std::string run(const Program &p) {
    for (const auto &f : p.functions) {
      fn = f.get();
      visible.clear();
      if (!checkBlock(f->entry(), OpKind::Return))
        return error;
    }
    return "";
  }

private:
  bool fail(const Operation &op, const std::string &what) {
    error = "in @" + fn->name + ": '" + op.name() + "' " + what;
    return false;
  }

  bool checkBlock(const Block &b, OpKind terminator) {
    std::vector<const Value *> added;
    auto define = [&](const Value *v) {
      visible.insert(v);
      added.push_back(v);
    };
    for (const auto &a : b.args)
      define(a.get());
    bool ok = true;
    if (!b.terminator() || b.terminator()->kind != terminator) {
      error = "in @" + fn->name + ": a block does not end in '" + opKindName(terminator) + "'";
      ok = false;
    }
    for (size_t i = 0; ok && i < b.ops.size(); ++i) {
      const Operation &op = *b.ops[i];
      for (const Value *v : op.operands)
        if (!visible.contains(v))
          ok = fail(op, "uses a value that is not defined before it");
      if (ok && op.info && op.operands.size() < op.info->minOperands())
        ok = fail(op, "has too few operands");
      if (ok && (op.kind == OpKind::Call || op.kind == OpKind::Grad) && !op.callee)
        ok = fail(op, "has no callee");
      for (const auto &h : op.carried)
        define(h.get());
      for (size_t r = 0; ok && r < op.regions.size(); ++r) {
        OpKind term = op.kind == OpKind::While && r == 0 ? OpKind::Condition : OpKind::Yield;
        ok = checkBlock(*op.regions[r]->block, term);
      }
      for (const auto &res : op.results)
        define(res.get());
    }
    for (const Value *v : added)
      visible.erase(v);
    return ok;
  }

  const Function *fn = nullptr;
  llvm::DenseSet<const Value *> visible;
  std::string error;
};

} // namespace

std::string verify(const Program &program) { return Verifier().run(program); }

} // namespace dlm::ssa
