// The grammar of the .dlm language (docs/language.md), ANTLR 4, C++ target.
//
// Indentation: the lexer below only produces NEWLINE tokens carrying the next line's leading
// whitespace; the C++ subclass compiler/frontend/IndentingLexer turns them into NEWLINE, INDENT
// and DEDENT, drops newlines inside brackets (implicit line joining) and blank lines, and
// reports tabs, bad dedents, unbalanced brackets and unterminated strings. There are no actions
// or predicates in this file, so the grammar stays target-independent and fast under SLL.
//
// Chains (binary operators, unary prefixes, `**`, `a if c else b`, trailers) are loops, not
// recursion, so a long expression makes a wide parse tree rather than a deep one; the AST
// builder folds the loops with the right associativity.
grammar Dlm;

tokens { INDENT, DEDENT }

// ============================================================================================
// Parser
// ============================================================================================

file : (NEWLINE | stmt)* EOF ;

stmt : simpleStmt | compoundStmt ;

simpleStmt : smallStmt NEWLINE ;

smallStmt
  : IMPORT importName                                   # importStmt
  | RETURN testList?                                    # returnStmt
  | PASS                                                # passStmt
  | BREAK                                               # breakStmt
  | CONTINUE                                            # continueStmt
  | ASSERT test (COMMA test)?                           # assertStmt
  | testList (augOp testList | (COLON annotation)? ASSIGN testList)?   # exprStmt
  ;

importName : STRING | importPart (SLASH importPart)* ;
importPart : NAME | DOT DOT | DOT ;

augOp : PLUS_ASSIGN | MINUS_ASSIGN | STAR_ASSIGN | SLASH_ASSIGN ;

compoundStmt : funcDef | ifStmt | whileStmt | forStmt ;

funcDef : DEF NAME LPAREN params? RPAREN (ARROW annotation)? COLON block ;
params  : param (COMMA param)* COMMA? ;
param   : NAME (COLON annotation)? (ASSIGN test)? ;

ifStmt     : IF test COLON block elifClause* elseClause? ;
elifClause : ELIF test COLON block ;
elseClause : ELSE COLON block ;
whileStmt  : WHILE test COLON block ;
forStmt    : FOR testList IN testList COLON block ;

block : simpleStmt | NEWLINE INDENT stmt+ DEDENT ;

// Type annotations: `int`, `Tensor`, `Tensor[f64, B, 784]`, `(Tensor, int)`, `tuple[...]`.
// Which names are types, dtypes or symbolic dimensions is decided by the AST builder.
annotation
  : NAME (LBRACK annotationArg (COMMA annotationArg)* COMMA? RBRACK)?    # namedAnnotation
  | LPAREN (annotation (COMMA annotation)* COMMA?)? RPAREN               # tupleAnnotation
  ;
annotationArg : annotation | INT ;

// ---- expressions, lowest precedence first ----
testList : test (COMMA test)* COMMA? ;

// e0 if c0 else e1 if c1 else e2 == e0 if c0 else (e1 if c1 else e2)
test : orTest (IF orTest ELSE orTest)* ;

orTest     : andTest (OR andTest)* ;
andTest    : notTest (AND notTest)* ;
notTest    : NOT* comparison ;
comparison : arith (compOp arith)* ;
compOp     : LT | LE | GT | GE | EQ | NE ;
arith      : term (addOp term)* ;
addOp      : PLUS | MINUS ;
term       : factor (mulOp factor)* ;
mulOp      : STAR | SLASH | DSLASH | PERCENT | AT ;
factor     : MINUS* power ;
// a ** -b ** c == a ** (-(b ** c))
power      : atomExpr (POW MINUS* atomExpr)* ;
atomExpr   : atom trailer* ;

trailer
  : LPAREN argList? RPAREN                              # callTrailer
  | LBRACK subscriptList RBRACK                         # subscriptTrailer
  | DOT NAME                                            # attributeTrailer
  ;

atom
  : LPAREN testList? RPAREN                             # parenAtom
  | LBRACK (test (COMMA test)* COMMA?)? RBRACK          # listAtom
  | NAME                                                # nameAtom
  | INT                                                 # intAtom
  | FLOAT                                               # floatAtom
  | STRING+                                             # stringAtom
  | TRUE                                                # trueAtom
  | FALSE                                               # falseAtom
  ;

argList  : argument (COMMA argument)* COMMA? ;
argument : NAME ASSIGN test | test ;

subscriptList : subscript (COMMA subscript)* COMMA? ;
// One index item: `i` or a slice `lower:upper:step` with every part optional.
subscript : test sliceTail? | sliceTail ;
sliceTail : COLON upper=test? (COLON step=test?)? ;

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
