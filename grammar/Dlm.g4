// The grammar of the .dlm language (docs/language.md), ANTLR 4, C++ target.
//
// Indentation: the lexer below only produces NEWLINE tokens carrying the next line's leading
// whitespace; the C++ subclass compiler/frontend/IndentingTokenizer turns them into NEWLINE, INDENT
// and DEDENT, drops newlines inside brackets (implicit line joining) and blank lines, and
// reports tabs, bad dedents, unbalanced brackets and unterminated strings. There are no actions
// or predicates in this file (beyond the precedence predicates ANTLR derives for `expr`), so
// the grammar stays target-independent and fast under SLL.
//
// Expressions are one left-recursive rule (precedence climbing, see `expr`): an atom costs one
// parse-tree node instead of one per precedence level, which is most of the parser's speed.
grammar Dlm;

tokens { INDENT, DEDENT }

// ============================================================================================
// Parser
// ============================================================================================

file : (NEWLINE | stmt)* EOF ;

// Statement rules are flat (no simpleStmt/compoundStmt wrappers): each rule level is one more
// parse-tree node per statement.
stmt : smallStmt NEWLINE | funcDef | ifStmt | whileStmt | forStmt ;

smallStmt
  : IMPORT importName                                   # importStmt
  | RETURN testList?                                    # returnStmt
  | PASS                                                # passStmt
  | BREAK                                               # breakStmt
  | CONTINUE                                            # continueStmt
  | ASSERT expr (COMMA expr)?                           # assertStmt
  | testList (augOp testList | (COLON annotation)? ASSIGN testList)?   # exprStmt
  ;

importName : STRING | importPart (SLASH importPart)* ;
importPart : NAME | DOT DOT | DOT ;

augOp : PLUS_ASSIGN | MINUS_ASSIGN | STAR_ASSIGN | SLASH_ASSIGN ;

funcDef : DEF NAME LPAREN params? RPAREN (ARROW annotation)? COLON block ;
params  : param (COMMA param)* COMMA? ;
param   : NAME (COLON annotation)? (ASSIGN expr)? ;

ifStmt     : IF expr COLON block elifClause* elseClause? ;
elifClause : ELIF expr COLON block ;
elseClause : ELSE COLON block ;
whileStmt  : WHILE expr COLON block ;
forStmt    : FOR testList IN testList COLON block ;

block : smallStmt NEWLINE | NEWLINE INDENT stmt+ DEDENT ;

// Type annotations: `int`, `Tensor`, `Tensor[f64, B, 784]`, `(Tensor, int)`, `tuple[...]`.
// Which names are types, dtypes or symbolic dimensions is decided by the AST builder.
annotation
  : NAME (LBRACK annotationArg (COMMA annotationArg)* COMMA? RBRACK)?    # namedAnnotation
  | LPAREN (annotation (COMMA annotation)* COMMA?)? RPAREN               # tupleAnnotation
  ;
annotationArg : annotation | INT ;

// ---- expressions ----
testList : expr (COMMA expr)* COMMA? ;

// One left-recursive rule for every operator. ANTLR turns it into precedence climbing: a loop
// per call that attaches operators as long as they bind tightly enough, so `a + b + c + ...`
// costs no parser recursion however long (the parse tree is nested to the left; the AST
// builder unwinds it with a loop). Alternatives that continue an expression are listed from
// the tightest binding to the loosest, as in Python:
//   call/subscript/attribute > ** (right) > unary - > * / // % @ > + - > comparisons > not
//   > and > or > `x if c else y` (right)
// so `-a ** b` is -(a ** b), `a ** -b` is a ** (-b) and `not a == b` is not (a == b). Each
// continuing alternative labels its left operand `lhs` and primaries have none, which lets
// the AST builder tell them apart without casts; `op` is the operator token.
expr
  : LPAREN testList? RPAREN
  | LBRACK (expr (COMMA expr)* COMMA?)? RBRACK
  | NAME
  | INT
  | FLOAT
  | STRING+
  | TRUE
  | FALSE
  | lhs=expr op=LPAREN argList? RPAREN
  | lhs=expr op=LBRACK subscriptList RBRACK
  | lhs=expr op=DOT NAME
  | <assoc=right> lhs=expr op=POW rhs=expr
  | op=MINUS rhs=expr
  | lhs=expr op=(STAR | SLASH | DSLASH | PERCENT | AT) rhs=expr
  | lhs=expr op=(PLUS | MINUS) rhs=expr
  | lhs=expr op=(LT | LE | GT | GE | EQ | NE) rhs=expr
  | op=NOT rhs=expr
  | lhs=expr op=AND rhs=expr
  | lhs=expr op=OR rhs=expr
  | <assoc=right> lhs=expr op=IF cond=expr ELSE rhs=expr
  ;

argList  : argument (COMMA argument)* COMMA? ;
argument : NAME ASSIGN expr | expr ;

subscriptList : subscript (COMMA subscript)* COMMA? ;
// One index item: `i` or a slice `lower:upper:step` with every part optional.
subscript : expr sliceTail? | sliceTail ;
sliceTail : COLON upper=expr? (COLON step=expr?)? ;

// ============================================================================================
// Lexer
// ============================================================================================

DEF      : 'def' ;
RETURN   : 'return' ;
IF       : 'if' ;
ELIF     : 'elif' ;
ELSE     : 'else' ;
WHILE    : 'while' ;
FOR      : 'for' ;
IN       : 'in' ;
BREAK    : 'break' ;
CONTINUE : 'continue' ;
PASS     : 'pass' ;
ASSERT   : 'assert' ;
IMPORT   : 'import' ;
AND      : 'and' ;
OR       : 'or' ;
NOT      : 'not' ;
TRUE     : 'True' ;
FALSE    : 'False' ;

NAME  : [a-zA-Z_] [a-zA-Z_0-9]* ;
FLOAT : DIGITS '.' DIGITS? EXPONENT? | '.' DIGITS EXPONENT? | DIGITS EXPONENT ;
INT   : DIGITS ;
fragment DIGITS   : [0-9]+ ;
fragment EXPONENT : [eE] [+-]? DIGITS ;

STRING
  : '"""' .*? '"""'
  | '\'\'\'' .*? '\'\'\''
  | '"' (~["\\\r\n] | '\\' .)* '"'
  | '\'' (~['\\\r\n] | '\\' .)* '\''
  ;
// A quote with no closing quote on its line; the lexer subclass reports it.
UNTERMINATED_STRING
  : '"' (~["\\\r\n] | '\\' .)*
  | '\'' (~['\\\r\n] | '\\' .)*
  ;

LPAREN       : '(' ;
RPAREN       : ')' ;
LBRACK       : '[' ;
RBRACK       : ']' ;
COMMA        : ',' ;
COLON        : ':' ;
DOT          : '.' ;
ARROW        : '->' ;
ASSIGN       : '=' ;
PLUS_ASSIGN  : '+=' ;
MINUS_ASSIGN : '-=' ;
STAR_ASSIGN  : '*=' ;
SLASH_ASSIGN : '/=' ;
POW          : '**' ;
PLUS         : '+' ;
MINUS        : '-' ;
STAR         : '*' ;
DSLASH       : '//' ;
SLASH        : '/' ;
PERCENT      : '%' ;
AT           : '@' ;
LE           : '<=' ;
GE           : '>=' ;
EQ           : '==' ;
NE           : '!=' ;
LT           : '<' ;
GT           : '>' ;

// A line break and the next line's indentation (see the lexer subclass).
NEWLINE   : ('\r'? '\n' | '\r') [ \t\f]* ;
LINE_JOIN : '\\' [ \t\f]* ('\r'? '\n' | '\r') -> skip ;
SPACES    : [ \t\f]+ -> skip ;
COMMENT   : '#' ~[\r\n]* -> skip ;
// Anything else; the lexer subclass reports it and drops it.
ERRCHAR   : . ;
