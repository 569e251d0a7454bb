//===- compiler/ir/DlmirReader.cpp - .dlmir text -> Graph -----------------===//
//
// A hand-written lexer and recursive-descent parser for the syntax in Dlmir.h. Value names may
// be used before they are defined (a NextIteration feeds a Merge printed above it), so uses are
// recorded by name and resolved once the closing brace is reached. Attribute values are read
// according to the kind the op's registry entry declares (`[0, 1]` is Ints for `axes`, a Shape
// for `shape`). The first error is reported at its line:col and parsing stops.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/Dlmir.h"

#include "compiler/support/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <map>

namespace dlm::graph {
namespace {

enum class Tok : uint8_t {
  Eof,
  Error,
  Ident,
  ValueName,
  SymbolName,
  Int,
  Float,
  String,
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Comma,
  Equal,
  Colon,
  Hash
};

struct Token {
  Tok kind = Tok::Eof;
  llvm::StringRef text; ///< spelling (for names: without the sigil; strings: unescaped in `str`)
  const char *loc = nullptr;
  std::string str;
};

bool isIdentStart(char c) { return llvm::isAlpha(c) || c == '_' || c == '?'; }
bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_' || c == '.' || c == '?'; }

class Lexer {
public:
  explicit Lexer(llvm::StringRef buf) : buf(buf), pos(buf.begin()) {}

  Token next() {
    skipSpaceAndComments();
    Token t;
    t.loc = pos;
    if (pos == buf.end())
      return t;
    char c = *pos;
    if (c == '%' || c == '@')
      return lexName(t, c == '%' ? Tok::ValueName : Tok::SymbolName);
    if (c == '"')
      return lexString(t);
    if (llvm::isDigit(c) ||
        (c == '-' && pos + 1 != buf.end() && (llvm::isDigit(pos[1]) || pos[1] == 'i')))
      return lexNumber(t);
    if (isIdentStart(c)) {
      const char *start = pos;
      while (pos != buf.end() && isIdentChar(*pos))
        ++pos;
      t.kind = Tok::Ident;
      t.text = llvm::StringRef(start, pos - start);
      return t;
    }
    ++pos;
    t.text = llvm::StringRef(t.loc, 1);
    switch (c) {
    case '(':
      t.kind = Tok::LParen;
      break;
    case ')':
      t.kind = Tok::RParen;
      break;
    case '{':
      t.kind = Tok::LBrace;
      break;
    case '}':
      t.kind = Tok::RBrace;
      break;
    case '[':
      t.kind = Tok::LBracket;
      break;
    case ']':
      t.kind = Tok::RBracket;
      break;
    case ',':
      t.kind = Tok::Comma;
      break;
    case '=':
      t.kind = Tok::Equal;
      break;
    case ':':
      t.kind = Tok::Colon;
      break;
    case '#':
      t.kind = Tok::Hash;
      break;
    default:
      t.kind = Tok::Error;
      t.str = "unexpected character '" + std::string(1, c) + "'";
    }
    return t;
  }

private:
  void skipSpaceAndComments() {
    while (pos != buf.end()) {
      if (llvm::isSpace(*pos)) {
        ++pos;
      } else if (*pos == '/' && pos + 1 != buf.end() && pos[1] == '/') {
        while (pos != buf.end() && *pos != '\n')
          ++pos;
      } else {
        return;
      }
    }
  }

  Token lexName(Token &t, Tok kind) {
    ++pos;
    const char *start = pos;
    while (pos != buf.end() && isIdentChar(*pos))
      ++pos;
    if (pos == start) {
      t.kind = Tok::Error;
      t.str = std::string("expected a name after '") + start[-1] + "'";
      return t;
    }
    t.kind = kind;
    t.text = llvm::StringRef(start, pos - start);
    return t;
  }

  Token lexNumber(Token &t) {
    const char *start = pos;
    if (*pos == '-')
      ++pos;
    if (pos != buf.end() && *pos == 'i') { // -inf
      while (pos != buf.end() && llvm::isAlpha(*pos))
        ++pos;
      t.kind = Tok::Float;
      t.text = llvm::StringRef(start, pos - start);
      return t;
    }
    bool isFloat = false;
    while (pos != buf.end() && llvm::isDigit(*pos))
      ++pos;
    if (pos != buf.end() && *pos == '.') {
      isFloat = true;
      ++pos;
      while (pos != buf.end() && llvm::isDigit(*pos))
        ++pos;
    }
    if (pos != buf.end() && (*pos == 'e' || *pos == 'E')) {
      isFloat = true;
      ++pos;
      if (pos != buf.end() && (*pos == '+' || *pos == '-'))
        ++pos;
      while (pos != buf.end() && llvm::isDigit(*pos))
        ++pos;
    }
    t.kind = isFloat ? Tok::Float : Tok::Int;
    t.text = llvm::StringRef(start, pos - start);
    return t;
  }

  Token lexString(Token &t) {
    ++pos;
    while (pos != buf.end() && *pos != '"' && *pos != '\n') {
      char c = *pos++;
      if (c != '\\') {
        t.str += c;
        continue;
      }
      if (pos == buf.end())
        break;
      char e = *pos++;
      t.str += e == 'n' ? '\n' : e;
    }
    if (pos == buf.end() || *pos != '"') {
      t.kind = Tok::Error;
      t.str = "unterminated string";
      return t;
    }
    ++pos;
    t.kind = Tok::String;
    t.text = llvm::StringRef(t.loc, pos - t.loc);
    return t;
  }

  llvm::StringRef buf;
  const char *pos;
};

/// A use of a value name, resolved after the whole graph is read.
struct PendingUse {
  std::string name;
  uint32_t port;
  const char *loc;
  NodeId user;
  int operand; ///< data operand index, or -1 for a control input.
};

class Parser {
public:
  Parser(DiagnosticEngine &diag, llvm::StringRef buf) : diag(diag), lex(buf) { advance(); }

  std::optional<Graph> parse(std::vector<llvm::SMLoc> *opLocs) {
    if (!parseHeader() || !parseBody() || !resolveUses())
      return std::nullopt;
    if (opLocs)
      for (const char *p : nodeLocs)
        opLocs->push_back(llvm::SMLoc::getFromPointer(p));
    return std::move(graph);
  }

private:
  // --- Token helpers ---------------------------------------------------------------------
  void advance() { tok = lex.next(); }

  bool error(const char *loc, const llvm::Twine &msg) {
    diag.error(llvm::SMLoc::getFromPointer(loc), msg);
    return false;
  }

  std::string describe(const Token &t) {
    switch (t.kind) {
    case Tok::Eof:
      return "end of file";
    case Tok::ValueName:
      return "'%" + t.text.str() + "'";
    case Tok::SymbolName:
      return "'@" + t.text.str() + "'";
    default:
      return "'" + t.text.str() + "'";
    }
  }

  /// Reports "expected <what>, found <token>" (or the lexer's own message).
  bool expected(const llvm::Twine &what) {
    if (tok.kind == Tok::Error)
      return error(tok.loc, tok.str);
    return error(tok.loc, "expected " + what + ", found " + describe(tok));
  }

  bool consume(Tok kind, const char *spelling) {
    if (tok.kind != kind)
      return expected(llvm::Twine("'") + spelling + "'");
    advance();
    return true;
  }

  bool consumeKeyword(llvm::StringRef word) {
    if (tok.kind != Tok::Ident || tok.text != word)
      return expected("'" + word + "'");
    advance();
    return true;
  }

  bool atKeyword(llvm::StringRef word) const { return tok.kind == Tok::Ident && tok.text == word; }

  bool parseInt(int64_t &out) {
    if (tok.kind != Tok::Int)
      return expected("an integer");
    if (tok.text.getAsInteger(10, out))
      return error(tok.loc, "integer '" + tok.text + "' is out of range");
    advance();
    return true;
  }

  bool parseUnsigned(uint32_t &out, const char *what) {
    const char *loc = tok.loc;
    int64_t v = 0;
    if (!parseInt(v))
      return false;
    if (v < 0 || v > INT32_MAX)
      return error(loc, llvm::Twine(what) + " must be a non-negative integer");
    out = static_cast<uint32_t>(v);
    return true;
  }

  bool parseFloat(double &out) {
    if (tok.kind == Tok::Ident && (tok.text == "inf" || tok.text == "nan")) {
      out = tok.text == "inf" ? INFINITY : NAN;
      advance();
      return true;
    }
    if (tok.kind != Tok::Int && tok.kind != Tok::Float)
      return expected("a number");
    if (tok.text == "-inf")
      out = -INFINITY;
    else if (tok.text.getAsDouble(out))
      return error(tok.loc, "malformed number '" + tok.text + "'");
    advance();
    return true;
  }

  /// Parses `[ elem, ... ]` calling `each` per element.
  template <typename F> bool parseList(F each) {
    if (!consume(Tok::LBracket, "["))
      return false;
    if (tok.kind == Tok::RBracket) {
      advance();
      return true;
    }
    while (true) {
      if (!each())
        return false;
      if (tok.kind == Tok::RBracket) {
        advance();
        return true;
      }
      if (tok.kind != Tok::Comma)
        return expected("',' or ']'");
      advance();
    }
  }

  // --- Types -----------------------------------------------------------------------------
  bool parseDType(DType &out) {
    if (tok.kind != Tok::Ident)
      return expected("a dtype");
    auto dt = parseDTypeName(tok.text);
    if (!dt)
      return error(tok.loc,
                   "unknown dtype '" + tok.text + "' (expected f32, f64, i32, i64 or bool)");
    out = *dt;
    advance();
    return true;
  }

  static std::optional<DType> parseDTypeName(llvm::StringRef s) {
    return dlm::parseDType(std::string_view(s.data(), s.size()));
  }

  bool parseDim(Dim &out) {
    if (tok.kind == Tok::Int) {
      const char *loc = tok.loc;
      int64_t v = 0;
      if (!parseInt(v))
        return false;
      if (v == -1) {
        out = inferDim();
        return true;
      }
      if (v < 0)
        return error(loc, "dimension must be non-negative, found " + llvm::Twine(v));
      out = Dim::fixed(v);
      return true;
    }
    if (tok.kind != Tok::Ident)
      return expected("a dimension");
    out = Dim::symbol(tok.text.str());
    advance();
    return true;
  }

  bool parseShape(Shape &out) {
    return parseList([&] {
      Dim d;
      if (!parseDim(d))
        return false;
      out.push_back(std::move(d));
      return true;
    });
  }

  bool parseType(Type &out) {
    if (atKeyword("str")) {
      advance();
      out = Type::strTy();
      return true;
    }
    if (tok.kind != Tok::Ident)
      return expected("a type");
    DType dt = DType::F32;
    if (!parseDType(dt))
      return false;
    Shape shape;
    if (tok.kind != Tok::LBracket)
      return expected("'[' after the dtype (a 0-d tensor is written '" +
                      llvm::Twine(dtypeName(dt).data()) + "[]')");
    if (!parseShape(shape))
      return false;
    out = Type::tensor(dt, std::move(shape));
    return true;
  }

  // --- Attributes ------------------------------------------------------------------------
  static bool isListKind(AttrKind k) {
    return k == AttrKind::Ints || k == AttrKind::Floats || k == AttrKind::DTypes ||
           k == AttrKind::Shape || k == AttrKind::Shapes;
  }

  /// Reads an attribute value. Scalars are read by their spelling (the printer writes floats
  /// with a '.' or exponent, so `1` is an int and `1.0` a float); a list is read as the list
  /// kind the op declares for the attribute, or else by the spelling of its first element.
  bool parseAttrValue(AttrKind declared, AttrValue &out) {
    switch (tok.kind) {
    case Tok::Int: {
      int64_t v = 0;
      if (!parseInt(v))
        return false;
      out = v;
      return true;
    }
    case Tok::Float: {
      double v = 0;
      if (!parseFloat(v))
        return false;
      out = v;
      return true;
    }
    case Tok::String:
      out = tok.str;
      advance();
      return true;
    case Tok::LBracket:
      return parseListAttr(isListKind(declared) ? declared : listKindFromSpelling(), out);
    case Tok::Ident:
      break;
    default:
      return expected("an attribute value");
    }
    if (atKeyword("true") || atKeyword("false")) {
      out = tok.text == "true";
      advance();
      return true;
    }
    if (atKeyword("inf") || atKeyword("nan")) {
      double v = 0;
      parseFloat(v);
      out = v;
      return true;
    }
    DType dt = DType::F32;
    if (!parseDType(dt))
      return false;
    out = dt;
    return true;
  }

  /// The list kind a '[' starts, judged by the token after it (one token of lookahead on a
  /// copy of the lexer).
  AttrKind listKindFromSpelling() {
    Lexer peek = lex;
    Token first = peek.next();
    switch (first.kind) {
    case Tok::Float:
      return AttrKind::Floats;
    case Tok::LBracket:
      return AttrKind::Shapes;
    case Tok::Ident:
      if (parseDTypeName(first.text))
        return AttrKind::DTypes;
      if (first.text == "inf" || first.text == "nan")
        return AttrKind::Floats;
      return AttrKind::Shape;
    default:
      return AttrKind::Ints;
    }
  }

  /// Reads `[e, ...]` into a std::vector<T> stored in `out`, each element by `parseElem(T&)`.
  template <typename T, typename F> bool parseVector(AttrValue &out, F parseElem) {
    std::vector<T> v;
    if (!parseList([&] { return parseElem(v.emplace_back()); }))
      return false;
    out = std::move(v);
    return true;
  }

  bool parseListAttr(AttrKind kind, AttrValue &out) {
    switch (kind) {
    case AttrKind::Floats:
      return parseVector<double>(out, [&](double &d) { return parseFloat(d); });
    case AttrKind::DTypes:
      return parseVector<DType>(out, [&](DType &d) { return parseDType(d); });
    case AttrKind::Shape: {
      Shape s;
      if (!parseShape(s))
        return false;
      out = std::move(s);
      return true;
    }
    case AttrKind::Shapes:
      return parseVector<Shape>(out, [&](Shape &sh) { return parseShape(sh); });
    default:
      return parseVector<int64_t>(out, [&](int64_t &i) { return parseInt(i); });
    }
  }

  bool parseAttrs(const OpInfo &info, Attrs &attrs) {
    advance(); // '{'
    while (true) {
      if (tok.kind != Tok::Ident)
        return expected("an attribute name");
      std::string name = tok.text.str();
      const char *nameLoc = tok.loc;
      const AttrSpec *spec = info.findAttr(name);
      if (!spec)
        return error(nameLoc, "op '" + info.name + "' has no attribute '" + name + "'");
      if (attrs.count(name))
        return error(nameLoc, "attribute '" + name + "' is given twice");
      advance();
      if (!consume(Tok::Equal, "="))
        return false;
      AttrValue v;
      if (!parseAttrValue(spec->kind, v))
        return false;
      attrs.emplace(std::move(name), std::move(v));
      if (tok.kind == Tok::RBrace) {
        advance();
        return true;
      }
      if (tok.kind != Tok::Comma)
        return expected("',' or '}'");
      advance();
    }
  }

  // --- Graph structure -------------------------------------------------------------------
  bool parseHeader() {
    if (!consumeKeyword("graph"))
      return false;
    if (tok.kind != Tok::SymbolName)
      return expected("the graph's name ('@main')");
    graph.setName(tok.text.str());
    advance();
    return consume(Tok::LBrace, "{");
  }

  bool parseFrameRef(FrameId &out) {
    if (tok.kind != Tok::SymbolName)
      return expected("a frame name ('@name')");
    auto f = graph.findFrame(std::string_view(tok.text.data(), tok.text.size()));
    if (!f || *f == kRootFrame)
      return error(tok.loc, "undefined frame '@" + tok.text + "'");
    out = *f;
    advance();
    return true;
  }

  bool parseFrame() {
    advance(); // 'frame'
    if (tok.kind != Tok::SymbolName)
      return expected("a frame name ('@name')");
    std::string name = tok.text.str();
    if (graph.findFrame(name))
      return error(tok.loc, "frame '@" + name + "' is defined twice");
    advance();
    FrameId parent = kRootFrame;
    if (atKeyword("in")) {
      advance();
      if (!parseFrameRef(parent))
        return false;
    }
    if (!consume(Tok::LBrace, "{") || !consumeKeyword("parallel_iterations") ||
        !consume(Tok::Equal, "="))
      return false;
    const char *loc = tok.loc;
    int64_t n = 0;
    if (!parseInt(n))
      return false;
    if (n < 1)
      return error(loc, "parallel_iterations must be at least 1, found " + llvm::Twine(n));
    graph.addFrame(std::move(name), parent, n);
    return consume(Tok::RBrace, "}");
  }

  bool parseBody() {
    while (atKeyword("frame"))
      if (!parseFrame())
        return false;
    while (tok.kind == Tok::ValueName)
      if (!parseNode())
        return false;
    if (tok.kind == Tok::Ident && tok.text == "frame")
      return error(tok.loc, "frames must be declared before the first node");
    if (tok.kind != Tok::RBrace)
      return expected("'}' or a node ('%name = op(...)')");
    advance();
    if (tok.kind != Tok::Eof)
      return expected("end of file after the graph");
    return true;
  }

  /// `%name` or `%name#port`, recorded for resolution.
  bool parseUse(NodeId user, int operand) {
    if (tok.kind != Tok::ValueName)
      return expected("a value ('%name')");
    PendingUse use{tok.text.str(), 0, tok.loc, user, operand};
    advance();
    if (tok.kind == Tok::Hash) {
      if (operand < 0)
        return error(tok.loc, "control inputs name a node, not one of its outputs");
      advance();
      if (!parseUnsigned(use.port, "an output index"))
        return false;
    }
    pending.push_back(std::move(use));
    return true;
  }

  bool parseNode() {
    std::string name = tok.text.str();
    const char *nameLoc = tok.loc;
    if (names.count(name))
      return error(nameLoc, "'%" + name + "' is defined twice");
    advance();
    uint32_t declaredResults = 1;
    bool countGiven = false;
    if (tok.kind == Tok::Colon) {
      advance();
      countGiven = true;
      if (!parseUnsigned(declaredResults, "a result count"))
        return false;
    }
    if (!consume(Tok::Equal, "="))
      return false;
    if (tok.kind != Tok::Ident)
      return expected("an op name");
    const OpInfo *info =
        OpRegistry::get().lookup(std::string_view(tok.text.data(), tok.text.size()));
    if (!info)
      return error(tok.loc, "unknown op '" + tok.text + "'");
    const char *opLoc = tok.loc;
    advance();

    NodeId id = static_cast<NodeId>(graph.numNodes());
    graph.addNode(info->kind, {}, {}, kRootFrame);
    names.emplace(name, id);
    nodeLocs.push_back(opLoc);
    if (!consume(Tok::LParen, "("))
      return false;
    int operand = 0;
    while (tok.kind != Tok::RParen) {
      if (operand && !consume(Tok::Comma, ","))
        return false;
      if (!parseUse(id, operand++))
        return false;
    }
    advance();
    graph.node(id).inputs.resize(operand);
    if (atKeyword("ctrl")) {
      advance();
      if (!consume(Tok::LParen, "("))
        return false;
      bool first = true;
      while (tok.kind != Tok::RParen) {
        if (!first && !consume(Tok::Comma, ","))
          return false;
        first = false;
        if (!parseUse(id, -1))
          return false;
      }
      advance();
    }
    if (tok.kind == Tok::LBrace && !parseAttrs(*info, graph.node(id).attrs))
      return false;
    if (tok.kind != Tok::Colon)
      return expected("':' and the result types ('()' for none)");
    advance();
    const char *typesLoc = tok.loc;
    if (!parseResultTypes(graph.node(id).results))
      return false;
    uint32_t count = static_cast<uint32_t>(graph.node(id).results.size());
    if ((countGiven || count != 1) && count != declaredResults && !(count == 0 && !countGiven))
      return error(typesLoc, "'%" + name + "' declares " + llvm::Twine(declaredResults) +
                                 " results but " + llvm::Twine(count) + " types are given");
    if (atKeyword("in")) {
      advance();
      if (!parseFrameRef(graph.node(id).frame))
        return false;
    }
    if (atKeyword("on")) {
      advance();
      if (tok.kind != Tok::Ident)
        return expected("a device name after 'on'");
      graph.node(id).device = tok.text.str();
      advance();
    }
    if (atKeyword("loc") && !parseLoc(graph.node(id)))
      return false;
    return true;
  }

  bool parseResultTypes(std::vector<Type> &out) {
    if (tok.kind == Tok::LParen) {
      advance();
      return consume(Tok::RParen, ")");
    }
    while (true) {
      if (!parseType(out.emplace_back()))
        return false;
      if (tok.kind != Tok::Comma)
        return true;
      advance();
    }
  }

  bool parseLoc(Node &node) {
    advance(); // 'loc'
    if (!consume(Tok::LParen, "("))
      return false;
    if (tok.kind != Tok::String)
      return expected("a file name string");
    std::string file = tok.str;
    advance();
    uint32_t line = 0, col = 0;
    if (!consume(Tok::Colon, ":") || !parseUnsigned(line, "a line number") ||
        !consume(Tok::Colon, ":") || !parseUnsigned(col, "a column number"))
      return false;
    node.loc = Location{graph.internFile(file), line, col};
    if (atKeyword("grad_of")) {
      advance();
      if (tok.kind != Tok::String)
        return expected("an op name string after 'grad_of'");
      node.loc.gradOf = graph.internFile(tok.str);
      advance();
    }
    // The inlined calls, innermost first; interned outermost first (each names its caller).
    std::vector<std::pair<std::string, Location>> calls;
    while (atKeyword("in")) {
      advance();
      if (tok.kind != Tok::String)
        return expected("a function name string after 'in'");
      std::string function = tok.str;
      advance();
      if (!consumeKeyword("at"))
        return false;
      if (tok.kind != Tok::String)
        return expected("a file name string after 'at'");
      Location at{graph.internFile(tok.str)};
      advance();
      if (!consume(Tok::Colon, ":") || !parseUnsigned(at.line, "a line number") ||
          !consume(Tok::Colon, ":") || !parseUnsigned(at.col, "a column number"))
        return false;
      calls.emplace_back(std::move(function), at);
    }
    for (auto call = calls.rbegin(); call != calls.rend(); ++call) {
      call->second.inlinedAt = node.loc.inlinedAt;
      node.loc.inlinedAt = graph.internCallSite(call->first, call->second);
    }
    return consume(Tok::RParen, ")");
  }

  bool resolveUses() {
    for (const PendingUse &use : pending) {
      auto it = names.find(use.name);
      if (it == names.end())
        return error(use.loc, "use of undefined value '%" + use.name + "'");
      Node &user = graph.node(use.user);
      if (use.operand < 0) {
        graph.addControlInput(use.user, it->second);
        continue;
      }
      const Node &producer = graph.node(it->second);
      if (use.port >= producer.results.size())
        return error(use.loc, "'%" + use.name + "' has " + llvm::Twine(producer.results.size()) +
                                  " result(s); output #" + llvm::Twine(use.port) +
                                  " does not exist");
      user.inputs[use.operand] = ValueRef{it->second, use.port};
    }
    return true;
  }

  DiagnosticEngine &diag;
  Lexer lex;
  Token tok;
  Graph graph;
  std::map<std::string, NodeId> names;
  std::vector<const char *> nodeLocs;
  std::vector<PendingUse> pending;
};

} // namespace

std::optional<Graph> parseGraph(DiagnosticEngine &diag, unsigned bufferId,
                                std::vector<llvm::SMLoc> *opLocs) {
  const llvm::MemoryBuffer *buf = diag.getSourceMgr().getMemoryBuffer(bufferId);
  return Parser(diag, buf->getBuffer()).parse(opLocs);
}

} // namespace dlm::graph
