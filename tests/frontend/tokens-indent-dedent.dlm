# RUN: %dlmc --emit=tokens %s | FileCheck %s
# The token stream the parser sees: NEWLINE ends a logical line (not inside brackets, not on
# blank or comment lines), INDENT/DEDENT open and close blocks, several DEDENTs at once, and a
# final NEWLINE and DEDENTs before EOF.
if a:
    b = (1,

         2)

    if c:
        d
e
while f:
  g

# CHECK: IF 'if' <5:1>
# CHECK-NEXT: NAME 'a' <5:4>
# CHECK-NEXT: COLON ':' <5:5>
# CHECK-NEXT: NEWLINE '\n' <5:6>
# CHECK-NEXT: INDENT <6:5>
# CHECK-NEXT: NAME 'b' <6:5>
# CHECK-NEXT: ASSIGN '=' <6:7>
# CHECK-NEXT: LPAREN '(' <6:9>
# CHECK-NEXT: INT '1' <6:10>
# CHECK-NEXT: COMMA ',' <6:11>
# CHECK-NEXT: INT '2' <8:10>
# CHECK-NEXT: RPAREN ')' <8:11>
# CHECK-NEXT: NEWLINE '\n' <8:12>
# CHECK-NEXT: IF 'if' <10:5>
# CHECK-NEXT: NAME 'c' <10:8>
# CHECK-NEXT: COLON ':' <10:9>
# CHECK-NEXT: NEWLINE '\n' <10:10>
# CHECK-NEXT: INDENT <11:9>
# CHECK-NEXT: NAME 'd' <11:9>
# CHECK-NEXT: NEWLINE '\n' <11:10>
# CHECK-NEXT: DEDENT <12:1>
# CHECK-NEXT: DEDENT <12:1>
# CHECK-NEXT: NAME 'e' <12:1>
# CHECK-NEXT: NEWLINE '\n' <12:2>
# CHECK-NEXT: WHILE 'while' <13:1>
# CHECK-NEXT: NAME 'f' <13:7>
# CHECK-NEXT: COLON ':' <13:8>
# CHECK-NEXT: NEWLINE '\n' <13:9>
# CHECK-NEXT: INDENT <14:3>
# CHECK-NEXT: NAME 'g' <14:3>
# CHECK-NEXT: NEWLINE '\n' <14:4>
# CHECK-NEXT: DEDENT <49:1>
# CHECK-NEXT: EOF <49:1>
